"""Evaluation: metrics and the runs that measure paperscope against gold data."""
