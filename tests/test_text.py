"""Normalisation table: every markup form found in the five ICML 2026 lists, and the bug cases."""

from __future__ import annotations

import re

import pytest

from paperscope.text import clean_text, decode_entities, find_urls, fold, segment, tokenize

CASES = [
    # LaTeX math and commands (all seen in examples/icml2026)
    (r"up to 65$\times$ storage reduction", "up to 65× storage reduction"),
    (r"C$^2$R", "C²R"),
    (r"Classifier$^+$ (A-VARC$^+$)", "Classifier⁺ (A-VARC⁺)"),
    # TeX typography and inline HTML (seen in real exports)
    ("a ``drop-in'' fix -- fast", "a “drop-in” fix – fast"),
    (r"\emph{et al.}~and Fig.~3, about ~5%", "et al. and Fig. 3, about ~5%"),
    ("H<sub>2</sub>O, <i>in vivo</i>, a<sup>2</sup>, x<3", "H₂O, in vivo, a², x<3"),
    (r"rate 10^{-3} and $10^{-3}$", "rate 10⁻³ and 10⁻³"),
    (r"at \href{https://a.org/r/x}{\textcolor{black}{https://a.org/r/x}}.", "at https://a.org/r/x."),
    (r"see \href{https://a.org/q}{our \textbf{code}}", "see our code https://a.org/q"),
    (
        r"ranking systems---variants of a Bradley--Terry model",
        "ranking systems—variants of a Bradley–Terry model",
    ),
    (r"$\mathcal{O}(n)$ memory", "O(n) memory"),
    (r"$\widetilde{\mathcal{O}}(\sqrt{KT})$", "O(√(KT))"),
    (r"$\ell_2$ norm", "l_2 norm"),
    (r"over $\mathbb F^d$", "over F^d"),
    (r"$\alpha$ and $\omega$", "α and ω"),
    (r"$\tau_\text{mix}$", "τ_mix"),
    (r"\textit{e.g.} and \emph{et al.}", "e.g. and et al."),
    (r"\textbf{4.5} points", "4.5 points"),
    (r"\textbf{\emph{Self-Compression}}", "Self-Compression"),
    (r"$f_\theta$$g_\phi$", "f_θ g_φ"),
    (r"$$x^2$$", "x²"),
    (r"$10^{12}$ operations", "10¹² operations"),
    (r"50\% fewer and 100% more", "50% fewer and 100% more"),
    (r"costs \$5 and $x", "costs $5 and $x"),
    # markdown
    ("**TetraJet-v2** is *fast*", "TetraJet-v2 is fast"),
    ("***M***FM and ~~old~~ new", "MFM and old new"),
    (
        "[GitHub](https://github.com/BenchCouncil/llm-evaluatology)",
        "GitHub (https://github.com/BenchCouncil/llm-evaluatology)",
    ),
    ("`code` here", "code here"),
    ("at: _https://github.com/visitworld123/CPO_.", "at: https://github.com/visitworld123/CPO."),
    ("snake_case_name stays", "snake_case_name stays"),
    # Unicode NFKC and whitespace
    ("ＡＢＣ\u00a0ﬁne   text\n next", "ABC fine text next"),
    # URLs survive LaTeX
    (r"\url{https://github.com/Jianrong-Lu/PASO.git}.", "https://github.com/Jianrong-Lu/PASO.git."),
    (
        "https://github.com/OptimAI-Lab/Minimalist_LLM_Pretraining.",
        "https://github.com/OptimAI-Lab/Minimalist_LLM_Pretraining.",
    ),
]


@pytest.mark.parametrize(("original", "expected"), CASES)
def test_clean_text_table(original: str, expected: str) -> None:
    assert clean_text(original) == expected


def test_every_markup_form_in_the_examples_is_cleaned(icml_dir) -> None:
    residue = re.compile(r"\\[a-zA-Z]+|\$|\*\*|&[a-z]+;|\]\(")
    for path in sorted(icml_dir.glob("*.txt")):
        for paragraph in path.read_text(encoding="utf-8").split("\n\n")[1:]:
            cleaned = clean_text(paragraph)
            assert residue.search(cleaned) is None, (
                path.name,
                residue.search(cleaned).group(0),
                cleaned[:80],
            )


@pytest.mark.parametrize(
    ("text", "urls"),
    [
        ("Code: https://github.com/acme/apm.", ["https://github.com/acme/apm"]),
        ("(see https://x.org/a), and https://x.org/a", ["https://x.org/a"]),
        ("page https://ggc29.github.io/CReL/.", ["https://ggc29.github.io/CReL/"]),
        ("wiki https://en.wikipedia.org/wiki/Foo_(bar).", ["https://en.wikipedia.org/wiki/Foo_(bar)"]),
        ("{https://github.com/a/b}", ["https://github.com/a/b"]),
    ],
)
def test_find_urls_strips_trailing_punctuation(text: str, urls: list[str]) -> None:
    assert find_urls(text) == urls


def test_fold_makes_latex_and_plain_names_equal() -> None:
    assert fold(clean_text("C$^2$R")) == fold("c2r") == "c2r"


def test_tokenize_splits_hyphens_and_segments_chinese() -> None:
    assert tokenize("State-of-the-art C²R") == ["state", "of", "the", "art", "c2r"]
    assert "transformer" in tokenize("本文研究基于Transformer的检索增强生成")
    assert {"检索", "增强"} <= set(segment("检索增强生成", for_index=True).split())


def test_entities_are_decoded_exactly_once() -> None:
    assert decode_entities("Q&amp;A over R&amp;D &lt;1% &gt; 90%") == "Q&A over R&D <1% > 90%"
    assert decode_entities("&amp;amp;") == "&amp;"
    assert clean_text(decode_entities("&amp;amp;")) == "&amp;"


def test_readable_converts_tex_fields_only() -> None:
    from paperscope.text import readable

    assert readable("$k$-median") == "k-median"
    assert readable("graph neural networks") == "graph neural networks"
    assert "$" not in readable("$\\ell_1$ regularization")
