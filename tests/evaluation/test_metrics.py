import math

import pytest

from paperscope.evaluation.metrics import evaluate_run, mrr_at_k, ndcg_at_k, parse_metric, recall_at_k

# Hand-worked example: grades a=2, b=1, c=1; ranking x, a, c, y, b.
QRELS = {"a": 2, "b": 1, "c": 1, "z": 0}
RANKING = ["x", "a", "c", "y", "b"]


def test_ndcg_matches_hand_computation():
    # DCG@5 = 2/log2(3) + 1/log2(4) + 1/log2(6) = 2.14871; IDCG@5 = 2 + 1/log2(3) + 1/2 = 3.13093.
    dcg = 2 / math.log2(3) + 1 / 2 + 1 / math.log2(6)
    idcg = 2 + 1 / math.log2(3) + 1 / 2
    assert ndcg_at_k(RANKING, QRELS, 5) == pytest.approx(dcg / idcg)
    assert ndcg_at_k(RANKING, QRELS, 5) == pytest.approx(0.68629, abs=1e-5)
    # @2: DCG = 2/log2(3) = 1.26186; IDCG = 2 + 1/log2(3) = 2.63093.
    assert ndcg_at_k(RANKING, QRELS, 2) == pytest.approx(0.47962, abs=1e-5)
    assert ndcg_at_k(["a", "b", "c"], QRELS, 3) == pytest.approx(1.0)
    assert ndcg_at_k(RANKING, {"q": 0}, 10) == 0.0


def test_mrr_and_recall_match_hand_computation():
    assert mrr_at_k(RANKING, QRELS, 10) == 0.5
    assert mrr_at_k(RANKING, QRELS, 1) == 0.0
    assert recall_at_k(RANKING, QRELS, 1) == 0.0
    assert recall_at_k(RANKING, QRELS, 3) == pytest.approx(2 / 3)
    assert recall_at_k(RANKING, QRELS, 5) == 1.0


def test_evaluate_run_averages_judged_queries_only():
    run = {"q1": ["a"], "q2": ["n"]}
    qrels = {"q1": {"a": 1}, "q2": {"m": 1}, "q3": {"k": 0}, "q4": {"p": 1}}
    result = evaluate_run(run, qrels, ["mrr@10", "recall@1"])
    assert result == {"mrr@10": pytest.approx(1 / 3), "recall@1": pytest.approx(1 / 3)}


def test_unknown_metric_is_refused():
    with pytest.raises(ValueError, match="unknown metric 'map@10'"):
        parse_metric("map@10")
