"""Only confident card items are shown (issue 27): the card JSON keeps every claim with its score."""

from __future__ import annotations

from paperscope.cli import _card_lines
from paperscope.confidence import SHOW_THRESHOLDS, shown_card
from paperscope.extract.card import build_card
from paperscope.extract.claims import extract_claims
from paperscope.models import Paper, claim_text
from paperscope.triage.entry import card_summary
from paperscope.web.present import card_fields

# One result of the paper ("more than 14%") and one setting ("5% of data"), which the card keeps.
ABSTRACT = (
    "We study semi-supervised segmentation. SegMix bootstraps from a small seed set (5% of data). "
    "SegMix outperforms prior methods by more than 14% mIoU on Cityscapes."
)


def _paper() -> Paper:
    paper = Paper(paper_id="p1", abstract=ABSTRACT, clean_text=ABSTRACT, title="SegMix")
    paper.card = build_card(paper)
    return paper


def test_claims_keep_their_bound_in_words():
    claims = extract_claims("It is up to 50% and 40% faster, and gains more than 14% and about 3×.")
    assert [(c.value, c.unit, c.bound) for c in claims] == [
        ("50", "%", "up to"),
        ("40", "%", "up to"),
        ("14", "%", "more than"),
        ("3", "×", "about"),
    ]
    assert claim_text(claims[2].to_dict()) == "↑ more than 14% gains"


def test_setting_scores_below_the_show_threshold_and_result_above():
    by_value = {c["value"]: c for c in _paper().card.to_dict()["claims"]}
    assert set(by_value) == {"5", "14"}
    assert by_value["5"]["confidence"] < SHOW_THRESHOLDS["claims"] <= by_value["14"]["confidence"]


def test_low_score_claim_is_in_the_card_json_but_not_shown():
    paper = _paper()
    assert [c["value"] for c in shown_card(paper.card.to_dict())["claims"]] == ["14"]
    shown = "more than 14% mIoU"
    show_text = "\n".join(_card_lines(paper.card.to_dict()))
    page_text = " ".join(p.text for f in card_fields(paper) for p in f.pieces)
    summary = " ".join(text for _, text in card_summary(paper))
    for text in (show_text, page_text, summary):
        assert shown in text
        assert "5%" not in text


def test_cards_without_confidences_show_everything():
    old = {"method_names": ["A"], "methods": [{"name": "A"}], "claims": [{"value": "3", "unit": "%"}]}
    assert shown_card(old) == old
