"""The dictionary route for Chinese queries: OpenCC, segmentation, glossary and CC-CEDICT senses."""

import pytest

from paperscope.index.crosslingual import SENSES_PER_WORD, gloss_query


def test_traditional_query_is_simplified_and_latin_parts_kept():
    gloss = gloss_query("擴散模型 OCR 加速")
    assert gloss.latin == ["OCR"]
    assert gloss.words == ["扩散模型", "加速"]
    assert gloss.english[0] == "diffusion model"
    assert gloss.text.startswith("OCR diffusion model ")


def test_glossary_gives_the_field_sense_before_cc_cedict():
    # CC-CEDICT lists "mission" first for 任务 and "bear fruit" for 结果.
    gloss = gloss_query("任务结果")
    assert gloss.english == ["task", "result"]


def test_function_words_add_no_english():
    gloss = gloss_query("如何缓解幻觉")
    assert "如何" in gloss.words
    assert gloss.english[-1] == "hallucination"
    assert not any("how" in e.split() for e in gloss.english)


def test_library_frequencies_pick_the_sense_papers_use():
    # 方式 is glossed by CC-CEDICT as "way", "manner", "style", "mode" (in that order).
    plain = gloss_query("方式")
    assert plain.english == [" ".join(["way", "manner", "style", "mode"][:SENSES_PER_WORD])]
    counts = {"mode": 120, "way": 3, "manner": 1}
    ranked = gloss_query("方式", frequency=lambda terms: {t: counts.get(t, 0) for t in terms})
    assert ranked.english[0].split()[0] == "mode"


def test_query_without_chinese_glosses_nothing():
    gloss = gloss_query("sparse attention")
    assert gloss.words == [] and gloss.english == []
    assert gloss.latin == ["sparse", "attention"]


def test_glossary_file_errors_name_the_line():
    from paperscope.index.crosslingual import parse_glossary

    assert parse_glossary("# note\n\n扩散\tdiffusion\n", "g.tsv") == {"扩散": "diffusion"}
    with pytest.raises(ValueError, match=r"g.tsv:2: '扩散' is listed twice"):
        parse_glossary("扩散\tdiffusion\n扩散\tspread\n", "g.tsv")
    with pytest.raises(ValueError, match=r"g.tsv:1: expected"):
        parse_glossary("扩散 diffusion\n", "g.tsv")
