"""Snippets and matched terms: why a hit matched, in the paper's own words."""

from paperscope import Library
from paperscope.index.bm25 import query_terms
from paperscope.index.snippets import SNIPPET_CHARS, explain_hit

TEXT = (
    "Large models are costly to serve. "
    "We propose FiX, a 4-bit quantisation scheme for attention kernels. "
    "On ImageNet-1K it keeps accuracy within 0.3% while cutting memory by 3.1×."
)


def test_matched_terms_keep_query_order_and_drop_stop_words():
    terms, _ = explain_hit(query_terms("the attention quantisation of FiX models"), None, TEXT)
    assert terms == ["attention", "quantisation", "fix", "models"]
    assert explain_hit(query_terms("diffusion"), "A title about diffusion", TEXT)[0] == ["diffusion"]
    assert explain_hit(["zqxjv"], None, TEXT)[0] == []


def test_matched_terms_are_the_papers_own_words_of_the_query_stems():
    # The query's stem "transform" finds the abstract's words as written, for highlighting.
    text = "Transformers beat the transformer baseline. A transform of graphs."
    assert query_terms("transformers") == ["transform"]
    assert explain_hit(query_terms("transformers"), None, text)[0] == [
        "transformers",
        "transformer",
        "transform",
    ]
    assert explain_hit(query_terms("optimizers"), "An optimizer", "Optimization is hard.")[0] == [
        "optimizer",
        "optimization",
    ]


def test_snippet_is_the_sentence_with_most_terms_else_the_first():
    assert explain_hit(query_terms("attention quantisation"), None, TEXT)[1] == (
        "We propose FiX, a 4-bit quantisation scheme for attention kernels."
    )
    assert explain_hit(query_terms("imagenet memory"), None, TEXT)[1].startswith("On ImageNet-1K")
    assert explain_hit([], None, TEXT)[1] == "Large models are costly to serve."
    assert explain_hit(["x"], None, "") == ([], "")


def test_long_sentence_is_cut_at_a_word_with_an_ellipsis():
    sentence = "word " * 100 + "end."
    _, cut = explain_hit(["word"], None, sentence)
    assert cut.endswith("…") and len(cut) <= SNIPPET_CHARS + 1
    assert not cut[:-1].endswith(" ")


def test_search_hits_carry_terms_and_snippet(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("ICML 2026 Papers\n\n" + TEXT + "\n", encoding="utf-8")
    with Library(tmp_path / "lib.db", embedder="fake") as lib:
        lib.ingest([path])
        (hit,) = lib.search("attention quantisation", mode="bm25")
        assert hit.terms == ["attention", "quantisation"]
        assert hit.snippet == "We propose FiX, a 4-bit quantisation scheme for attention kernels."


def test_a_pasted_paragraph_marks_its_informative_words_not_function_words():
    from paperscope.index.bm25 import query_terms
    from paperscope.index.snippets import highlight_terms

    paragraph = (
        "Robust dataset distillation methods do not control robustness, yet they often suffer "
        "under attack, while being dominated by near-zero robust risk."
    )
    marked = highlight_terms(query_terms(paragraph))
    for function_word in ("not", "do", "they", "under", "while", "yet", "often", "be"):
        assert function_word not in marked
    for word in ("robust", "dataset", "distil", "attack", "domin"):
        assert word in marked
    words, _ = explain_hit(marked, None, "They do not distil; robust models are under attack.")
    assert words == ["robust", "distil", "attack"]


def test_a_full_stem_cache_is_replaced_and_answers_stay_the_same(monkeypatch):
    # The server keeps stems between searches; a cache past its size starts over, never half-empty.
    from paperscope.index import snippets

    terms = query_terms("attention quantisation memory")
    before = explain_hit(terms, "Quantised attention", TEXT)
    monkeypatch.setattr(snippets, "_STEM_CACHE_MAX", 5)
    monkeypatch.setattr(snippets, "_STEMS", {"attention": "wrong"})
    old = snippets._STEMS
    snippets._sentences.cache_clear()  # the paper's stems are kept too: stem its words again
    assert explain_hit(terms, "Quantised attention", TEXT) == before
    assert snippets._STEMS is not old and old == {"attention": "wrong"}  # replaced, not cleared
    assert before[0] == ["attention", "quantised", "quantisation", "memory"]
