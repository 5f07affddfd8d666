"""Method names: the names an abstract gives its own method, system, model, benchmark, dataset or metric.

Evidence, strongest first (each finds a name and its span in the clean text):

1. Introduction cues: "we propose/introduce/present/develop X", "this paper introduces X",
   "a framework called/named/dubbed X", "our framework, X", "Our X hybrid" (Nadeau & Sekine's
   survey of cue-based name spotting, 2007, for the idea; the cue list is ours).
2. Acronym definitions "long form (SF)" in the scope of a cue or of an own name
   ("OmniFit incorporates Layer-Adaptive Heterogeneity Profiling (LAHP)"). The long form is found
   by matching the short form's letters to word initials, then by Schwartz & Hearst's
   character match (PSB 2003), then by the Title-Case run that starts with the first letter.
3. Markdown-bold names in the original abstract (``**EcoVLA**``).
4. Coined tokens (``SafeSciBench``) listed after "comprises"/"new algorithms" by an own name.

Rejected: parenthetical citations, table/equation/section references, "(ours)", enumerations
such as "(i)" and "(1)", plural acronyms (``LLMs``: a class of things, not a name), and the
generic terms of ``data/generic_terms.txt`` (LLM, RL, GNN, DPO, …) — bugs/CASES.md case 19.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..text import clean_text, fold
from ._spans import Sentence, is_coined, is_generic, split_sentences

__all__ = ["MethodName", "extract_methods", "find_long_form", "primary_method", "defined_short_forms"]


@dataclass
class MethodName:
    """A name the paper gives its own contribution.

    Attributes:
        name: the name as written in the clean text (the short form when one is defined).
        long_form: the definition of an acronym (``"Cross-Consistency Regularization"``), or None.
        start: character offset of the first mention of ``name`` in the clean text.
        end: end offset (exclusive) of that mention.
        mentions: how many times ``name`` occurs in the clean text.
        evidence: which rule found it (``cue``, ``acronym``, ``bold``, ``component``, ``named``).

    """

    name: str
    long_form: str | None
    start: int
    end: int
    mentions: int = 1
    evidence: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "long_form": self.long_form,
            "start": self.start,
            "end": self.end,
            "mentions": self.mentions,
            "evidence": self.evidence,
        }


_VERBS = (
    r"propose|introduce|present|develop|design|build|construct|release|contribute|devise|formulate"
    r"|create|curate|offer|unveil|instantiate|built"
    # "we derive the Variational JEPA (Var-JEPA)": a cue only before a capitalised name, since
    # "we derive a bound of O(dβ²/ε⁴)" is a theory result.
    r"|derive(?=s?\s+(?:(?:the|a|an)\s+)?(?:new\s+)?(?-i:[A-Z*]))"
)
_CUE_RE = re.compile(
    r"\b(?:we|us\s+to|this\s+(?:paper|work|study|article)|our\s+(?:paper|work)|the\s+(?:paper|work))\s+"
    r"(?:(?:first|further|also|then|additionally|now|hence|thus|therefore|here|newly|instead)\s+)?"
    rf"(?:(?:{_VERBS})(?:s|d|ed)?|puts?\s+(?:forth|forward))\b\s*:?"
    # "we advance this line by introducing X": the gerund after "by" in a sentence the authors speak
    r"|\b(?-i:by)\s+(?:introducing|proposing|presenting|developing|designing)\b\s*:?",
    re.IGNORECASE,
)
_HEADS = (
    r"framework|method|model|approach|algorithm|system|benchmark|dataset|metric|architecture|pipeline"
    r"|technique|strategy|estimator|mechanism|toolkit|library|agent|attack|defen[cs]e|loss|objective"
    r"|module|solver|optimizer|network|scheme|procedure|protocol|paradigm|suite|family|tool"
)
#: A second cue verb joined to a first one: "we first curate the recipe and present Kimi-Dev".
_AND_CUE_RE = re.compile(rf"\b(?:and|then)\s+(?:then\s+)?(?:{_VERBS})(?:s|d|ed)?\b\s*:?", re.IGNORECASE)
_OUR_APPOSITIVE_RE = re.compile(rf"\bour\s+(?:[\w-]+\s+){{0,2}}(?:{_HEADS})s?\s*,\s*", re.IGNORECASE)
_NAMED_RE = re.compile(
    r"\b(?:named|called|dubbed|coined|termed|(?:which|that)\s+we\s+(?:call|term|name|dub|refer\s+to\s+as)"
    r"|referred\s+to\s+as)\s+",
    re.IGNORECASE,
)
_PHENOMENON_RE = re.compile(
    r"(?:phenomen\w+|effect|issue|problem|task|setting|scenario|behaviou?r|conflict|failure|property|regime|bias|trade-?off"
    r"|dilemma|paradox|collapse|gap)\W*(?:\w+\W+){0,2}$",
    re.IGNORECASE,
)
# Where the scope of a cue stops: the words after these point at prior or other work.
_PRIOR_RE = re.compile(
    r"\b(?:based\s+on|building\s+(?:up)?on|built\s+(?:up)?on|inspired\s+by|motivated\s+by|such\s+as|including"
    r"|e\.g\.|like|following|than|compared|over|against|versus|vs\.?|unlike|beyond|previous|prior|existing"
    r"|outperform\w*|surpass\w*|standard|conventional|grounded\s+in|derived\s+from|extend(?:s|ing)?|generali[sz]e[sd]?"
    r"|which\s+contains|recently)\b",
    re.IGNORECASE,
)
_COMPONENT_RE = re.compile(
    r"\b(?:comprises|consists\s+of|is\s+composed\s+of|contains|includes|incorporates|integrates|introduces"
    r"|employs|features|has\s+(?:two|three|four)|via|through|with)\b",
    re.IGNORECASE,
)
_SKIP = {
    "a",
    "an",
    "the",
    "novel",
    "new",
    "simple",
    "unified",
    "general",
    "generic",
    "lightweight",
    "efficient",
    "effective",
    "principled",
    "first",
    "our",
    "two",
    "three",
    "scalable",
    "powerful",
    "robust",
    "practical",
    "flexible",
    "modular",
    "open",
    "open-source",
    "end-to-end",
    "training-free",
    "plug-and-play",
    "fully",
    "large-scale",
    "comprehensive",
    "systematic",
    "theoretically-grounded",
}
#: The filler adjectives of ``_SKIP`` (not determiners or numbers): they may begin a long form.
_ADJECTIVES = _SKIP - {"a", "an", "the", "our", "first", "two", "three", "fully", "new", "novel"}
_OF_NOUNS = {"family", "class", "suite", "set", "series", "collection", "kind", "type", "variant", "version"}
_CONNECTORS = {"for", "of", "and", "via", "with", "in", "on", "to", "from", "by", "the", "&"}
_STOP_START = _SKIP | _CONNECTORS | {"we", "propose", "introduce", "present", "this", "that", "which", "is"}
# A short form may close with a typo'd brace: "Single-stage Sparse Retrieval (SSR}, a paradigm".
_PAREN_RE = re.compile(r"\(([^(){}]{1,60})[)}]")
_JUNK_PAREN_RE = re.compile(
    r"et\s+al|\b(?:1[89]|20)\d\d\b|^\s*(?:see|e\.g|i\.e|cf|ours|ref|eq|eqs|equation|table|tab|fig|figure"
    r"|sec|section|appendix|thm|theorem|lemma|corollary|def|definition|algorithm|alg|line)\b",
    re.IGNORECASE,
)
_ENUM_RE = re.compile(r"^\s*(?:i{1,3}|iv|vi{0,3}|ix|x{1,3}|[a-zA-Z]|\d+|[a-z]\d?)\s*$", re.IGNORECASE)
_BOLD_RE = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
#: Markdown italics and \textit/\emph: "we propose *SlaClip* … a post-hoc *Slack Indicator*".
_ITALIC_RE = re.compile(
    r"(?<![*\w])\*(?=[^\s*])([^*\n]{2,60}?)(?<=[^\s*])\*(?![*\w])|\\(?:textit|emph)\{([^{}]{2,60})\}"
)
_QUOTED_RE = re.compile(r"[\"“]([A-Z][^\"”]{2,60})[\"”]")
_TOKEN_RE = re.compile(r"[A-Za-z0-9²³⁴][\w²³⁴+\-]*[\w²³⁴+]|[A-Za-z]")
_SUFFIX_RE = re.compile(r"-(?:v?\d+(?:\.\d+)?[A-Za-z]?|\d+[KMBkmb]|[A-Z]?\d+)$")
_PLURAL_SF_RE = re.compile(r"^[A-Z0-9²³\-]{2,}s$")
_MAX_NAME_WORDS = 8
_OUR_COINED_RE = re.compile(r"\b[Oo]ur\s+([A-Za-z0-9²³][\w²³\-]*[\w²³])\s+[a-z]")
#: "DrIGM-compliant", "C-NODE-based": a coined token turned into an adjective modifies, not names.
_MODIFIER_SUFFIX_RE = re.compile(
    r"-(?:based|compliant|compatible|agnostic|friendly|dependent|aware|guided|style|like|driven|free|specific|conditioned)$"
)
_RESULT_HEADS = {"Theorem", "Lemma", "Conjecture", "Inequality", "Identity", "Hypothesis", "Principle"}
_TO_COINAGE_RE = re.compile(r"[A-Z][a-z]+2[A-Z][a-z]+")
_WE_RE = re.compile(r"\bwe\b", re.IGNORECASE)
#: "an unlearning framework CPU": a head noun right before a name (ends the text before the name).
#: "the resultant BinomMAML", "our proposed DIJA": a coined name the paper's own method gets.
_PROPOSED_RE = re.compile(
    r"\b(?:(?:the|our)\s+(?:newly\s+)?proposed|(?:the\s+)?result(?:ant|ing))\s+([A-Za-z0-9²³][\w²³\-]*[\w²³+])"
)
#: A token used as the name of a task: "our target ISR task", "the TSP problem".
_TASK_WORD_RE = re.compile(r"(?<![\w-])([^\s()\[\]{},;:]+?)\s+(?:tasks?|problems?)\b")
#: Tokens the abstract calls its own or reports results for: "our SGA algorithm", "PDD achieves".
#: One pattern for every token (a pattern per short form would be compiled per abstract).
_OUR_TOKEN_RE = re.compile(r"\b(?:our|the\s+proposed)\s+([\w²³+\-]+)(?:\s+([\w²³+\-]+))?")
_RESULT_TOKEN_RE = re.compile(
    r"(?<![\w-])([A-Za-z0-9][\w²³+\-]*[\w²³+])\s+(?:(?:also|further|consistently|significantly|substantially)\s+)?"
    r"(?:achieves|outperforms|surpasses|yields|delivers|attains|improves|reduces)\b"
)
#: A Title-Case name with its head noun, introduced with "a/an" where the authors speak:
#: "we characterize the stopping distribution via a Water-Filling Algorithm".
_A_TITLE_NAME_RE = re.compile(
    r"\b(?:a|an)\s+((?:[A-Z][\w-]*\s+){1,4}(?:Algorithm|Framework|Network|Mechanism|Estimator|Module"
    r"|Architecture|Benchmark|Loss|Attack|Defen[cs]e|Policy|Strategy|Method|Indicator|Score|Metric))\b"
)
#: A coined name the abstract then calls its own: "J1-Qwen-32B, our multitasked judge, …".
_NAME_OUR_RE = re.compile(r"(?<![\w-])([A-Za-z0-9][\w²³\-.]*[\w²³]),\s+our\s+")
#: A single capitalised word after "our … model,": "our fully self-supervised model, Screener, …".
_OUR_HEAD_NAME_RE = re.compile(
    rf"\bour\s+(?:[\w-]+\s+){{0,2}}(?:{_HEADS}),\s+((?-i:[A-Z][a-z][\w-]*)),", re.IGNORECASE
)
#: "Central to our approach is QuadGraph", "At the core of our method is X".
_CORE_RE = re.compile(
    r"\b(?:central|key|core)\s+to\s+our\s+\w+\s+is\s+|\bat\s+the\s+(?:core|heart)\s+of\s+our\s+\w+\s+is\s+",
    re.IGNORECASE,
)
#: A verb that uses something existing: its parenthesised name is not the paper's ("adapts a
#: large diffusion transformer (Flux.1)").
_USES_RE = re.compile(
    r"\b(?:adapts?|adapting|uses?|using|leverag\w+|employ\w*|fine-?tun\w+|builds?\s+(?:up)?on|based\s+on"
    r"|extends?|extending|initiali[sz]ed\s+from|on\s+top\s+of)(?:\s+(?:the|a|an))?(?:\s+[\w-]+){1,5}\s*$",
    re.IGNORECASE,
)
_LINK_WORDS = {
    "page",
    "website",
    "homepage",
    "link",
    "repository",
    "repo",
    "code",
    "demo",
    "project",
    "anonymous",
}
#: Head nouns of a problem the paper poses, not a method it proposes ("a new problem setting, X (XIL)").
_SETTING_RE = re.compile(
    r"\b(?:setting|problem|task|scenario|paradigm|phenomenon|concept|notion|capability|property)s?\b",
    re.IGNORECASE,
)
#: Heads of a component's Title-Case long form: "the Feature Aggregation Module (FAM)".
_COMPONENT_HEAD_RE = re.compile(r"\b(?:Module|Block|Unit|Layer|Branch|Head)$")
#: Title-Case heads that make a coined token and the word after it one name: "the BiDoT Score".
#: Endings of a coined token that modifies the name after it ("DGP-Driven", "LLM-Guided").
_MODIFIER_ENDS = ("-Driven", "-Guided", "-Based", "-Aware", "-Enhanced", "-Augmented", "-Conditioned")
_NAME_HEADS = {
    "Score",
    "Index",
    "Metric",
    "Benchmark",
    "Bench",
    "Dataset",
    "Loss",
    "Network",
    "Net",
    "Module",
    "Framework",
    "Algorithm",
    "Attention",
    "Transformer",
    "Policy",
    "Agent",
    "Suite",
    "Estimator",
}
_HEAD_THEN_NAME_RE = re.compile(rf"\b(?:{_HEADS})\s+$", re.IGNORECASE)
_COLON_NAME_RE = re.compile(
    rf"\b(?:{_HEADS}|process)\s*:\s+([a-z][\w-]*(?: [a-z][\w-]*){{1,3}})\s*[.;]", re.IGNORECASE
)


def _letters(sf: str) -> str:
    """Return the letters a short form spells, lower-cased: ``C²R`` gives ``ccr``, ``VPD-100K`` ``vpd``."""
    sf = _SUFFIX_RE.sub("", sf)
    out: list[str] = []
    for ch in sf:
        if ch.isalpha():
            out.append(ch.lower())
        elif ch in "²³⁴" and out:
            out.extend(out[-1] * ("²³⁴".index(ch) + 1))
    return "".join(out)


def _initials(word: str) -> str:
    """Return the letters a word contributes to an acronym: hyphen-part initials, capitals, all-caps runs."""
    out: list[str] = []
    for part in re.split(r"[-–/]", word):
        part = part.strip("\"'“”‘’,;:.")
        if not part:
            continue
        if part.isupper() and len(part) <= 5:
            out.append(part.lower())
            continue
        out.append(part[0].lower())
        out.extend(ch.lower() for ch in part[1:] if ch.isupper())
    return "".join(out)


def _is_subsequence(needle: str, hay: str) -> bool:
    it = iter(hay)
    return all(ch in it for ch in needle)


def _schwartz_hearst(sf_letters: str, words: list[str]) -> int | None:
    """Return the index of the first long-form word by Schwartz & Hearst's backward match, or None.

    Schwartz & Hearst (2003), "A simple algorithm for identifying abbreviation definitions in
    biomedical text": each short-form character is matched right to left in the candidate, the
    first one at the start of a word.
    """
    text = " ".join(words).lower()
    s, li = len(sf_letters) - 1, len(text) - 1
    while s >= 0:
        ch = sf_letters[s]
        while li >= 0 and (text[li] != ch or (s == 0 and li > 0 and text[li - 1].isalnum())):
            li -= 1
        if li < 0:
            return None
        li -= 1
        s -= 1
    start_char = li + 1
    pos = 0
    for i, w in enumerate(words):
        if pos + len(w) > start_char:
            return i
        pos += len(w) + 1
    return None


def find_long_form(before: str, sf: str, title_fallback: bool = True) -> tuple[int, str] | None:
    """Return ``(offset, long_form)`` of the definition of ``sf`` that ends ``before``, or None.

    Args:
        before: the text of the sentence up to the opening parenthesis (no trailing bracket).
        sf: the short form, e.g. ``"C²R"`` or ``"VPD-100K"``.
        title_fallback: accept a Title-Case run that starts with the short form's first letter
            when no letter match exists (``Fine-grained Forgetting Transformer (FiX)``).

    Returns:
        The offset of the long form in ``before`` and its text; None when nothing matches.

    """
    letters = _letters(sf)
    if not letters:
        return None
    # An em dash ends a phrase: "metrics—weighted mean-squared error (WMSE)".
    base = max((before.rfind(sep) + len(sep) if sep in before else 0) for sep in ("—", " - ", "--"))
    words_all = list(re.finditer(r"\S+", before[base:]))
    # The long form never crosses punctuation that ends a phrase, nor a cue verb.
    words: list[re.Match[str]] = []
    for m in reversed(words_all):
        w = m.group(0)
        if words and (w[-1] in ",;:.!?)" or w.lower() in _VERB_WORDS):
            break
        words.insert(0, m)
        if len(words) >= min(len(letters) + 5, 2 * len(letters) + 2):
            break
    if not words:
        return None
    texts = [m.group(0).strip("\"'“”") for m in words]
    best: int | None = None
    for i in range(len(texts)):
        if texts[i].lower() in _STOP_START or not _clean_long_form(texts[i:]):
            continue
        init = "".join(_initials(t) for t in texts[i:] if t.lower() not in _CONNECTORS)
        if init and init[0] == letters[0] and _is_subsequence(letters, init):
            best = i
            break
    if best is None:
        # An adjective that is usually filler starts the long form when the letters need it:
        # "a novel robust cross-domain Bellman (RCB) operator".
        for i in range(len(texts)):
            low = texts[i].lower()
            if low not in _SKIP or low in _STOP_START - _ADJECTIVES or not _clean_long_form(texts[i:]):
                continue
            init = "".join(_initials(t) for t in texts[i:] if t.lower() not in _CONNECTORS)
            if init[:1] == letters[0] and _is_subsequence(letters, init):
                best = i
                break
    if best is None and len(letters) >= 2:
        j = _schwartz_hearst(letters, texts)
        if j is not None and texts[j].lower() not in _STOP_START:
            n_content = sum(t.lower() not in _CONNECTORS for t in texts[j:])
            if n_content <= len(letters) + 1:
                best = j
    if best is None and title_fallback:
        run = len(texts)
        while run > 0 and (texts[run - 1][:1].isupper() or texts[run - 1].lower() in _CONNECTORS):
            run -= 1
        while run < len(texts) and texts[run].lower() in _CONNECTORS:
            run += 1
        if run < len(texts) and texts[run][0].lower() == letters[0] and len(texts) - run >= 2:
            best = run
    if best is None:
        return None
    if best is not None:
        # Drop trailing words after the last letter matched: "Stable Memory block (DMSM)".
        while len(texts) - best > 1 and texts[-1][:1].islower():
            init = "".join(_initials(t) for t in texts[best:-1] if t.lower() not in _CONNECTORS)
            if not _is_subsequence(letters, init):
                break
            texts.pop()
            words.pop()
    # Extend over Title-Case words with the same initial: "Native Network Anatomy (NaNA)".
    while best > 0 and texts[best - 1][:1].isupper() and texts[best - 1][0].lower() == letters[0]:
        if texts[best - 1].lower() in _STOP_START or words[best - 1].group(0)[-1] in ",;:":
            break
        best -= 1
    start = base + words[best].start()
    end = base + words[-1].end()
    return start, before[start:end].strip().strip("\"'“”")


_VERB_WORDS = {
    "we",
    "propose",
    "proposes",
    "introduce",
    "introduces",
    "present",
    "presents",
    "called",
    "named",
    "design",
    "develop",
    "build",
    "is",
    "are",
    "was",
    "uses",
    "use",
    "using",
}
_DETERMINERS = {"a", "an", "our", "this", "these", "its", "their", "that", "which"}


def _clean_long_form(texts: list[str]) -> bool:
    """Return False when a candidate long form holds a determiner not led by a connector ("of the")."""
    for k, t in enumerate(texts):
        low = t.lower()
        if low in _DETERMINERS or (low == "the" and (k == 0 or texts[k - 1].lower() not in _CONNECTORS)):
            return False
    return True


_PREV_TOKEN_RE = re.compile(r"([A-Za-z0-9²³][\w²³\-]*[\w²³])\s*$")


def _spells(sf: str, long_form: str) -> bool:
    """Return True when ``long_form`` spells ``sf``: first letter equal, the rest in order."""
    letters = _letters(sf)
    text = long_form.lower()
    multiword = " " in long_form.strip() or "-" in long_form
    return bool(letters) and multiword and text[:1] == letters[0] and _is_subsequence(letters, text)


def _is_short_form(content: str) -> bool:
    c = content.strip()
    if len(c) < 2 or len(c) > 20 or any(ch in c for ch in "_=,;{}"):
        return False
    if " " in c and not (len(c.split()) == 2 and any(ch.isdigit() for ch in c)):
        return False
    if not any("A" <= ch <= "Z" for ch in c):
        return False
    if _ENUM_RE.match(c) or _JUNK_PAREN_RE.search(c):
        return False
    return sum(ch.isalpha() for ch in c) >= 1 and not c.replace(".", "").isdigit()


# Cheap substring probes (on the lower-cased text) that must be present before a cue regex runs.
_CUE_PROBES = (
    (_CUE_RE, "cue", ("we ", "this ", "our ", "the paper", "the work")),
    (_OUR_APPOSITIVE_RE, "cue", ("our ",)),
    (_AND_CUE_RE, "cue", ("we ",)),
    (_NAMED_RE, "named", ("named", "called", "dubbed", "coined", "termed", "which we", "refer")),
)


def _scopes(sentence: Sentence) -> list[tuple[int, int, str]]:
    """Return the cue scopes of a sentence as absolute ``(start, end, kind)`` spans."""
    out: list[tuple[int, int, str]] = []
    lowered = sentence.text.lower()
    for regex, kind, probes in _CUE_PROBES:
        if not any(p in lowered for p in probes):
            continue
        for m in regex.finditer(sentence.text):
            if kind == "named" and _PHENOMENON_RE.search(sentence.text[: m.start()]):
                continue
            rest = sentence.text[m.end() :]
            stop = _PRIOR_RE.search(rest)
            end = m.end() + (stop.start() if stop else len(rest))
            out.append((sentence.start + m.end(), sentence.start + end, kind))
    return out


def _title_run(tokens: list[tuple[str, int, int]]) -> int:
    """Return how many leading tokens form a Title-Case name (connectors allowed inside)."""
    n = 0
    last_cap = 0
    for i, (tok, _, _) in enumerate(tokens[:_MAX_NAME_WORDS]):
        bare = tok.rstrip(",;:.")
        if bare[:1].isupper() or is_coined(bare):
            last_cap = i + 1
        elif bare.lower() not in _CONNECTORS or i == 0:
            break
        n = i + 1
        if bare != tok:
            break
    return last_cap if n else 0


def _defers_to_acronym(text: str, pos: int) -> bool:
    """Return True when a short-form parenthesis follows in the same phrase (the acronym rule names it)."""
    # The phrase ends at a sentence end too: "We propose X. The model … Module (LPM)" names X.
    m = re.match(r"(?:[^,;:().]|\.(?!\s)){0,90}?\(([^()]{1,30})\)", text[pos:])
    return bool(m and _is_short_form(m.group(1)) and not _PLURAL_SF_RE.match(m.group(1).strip()))


def _object_name(text: str, start: int, end: int) -> tuple[str, int, int] | None:
    """Return ``(name, start, end)`` named right after a cue in ``text[start:end]``, or None."""
    tokens = [(m.group(0), m.start() + start, m.end() + start) for m in re.finditer(r"\S+", text[start:end])]
    i = 0
    skipped = False
    while i < len(tokens):
        low = tokens[i][0].strip(",")
        if low in _SKIP or (low.endswith("-based") and i > 0):
            i += 1
            skipped = True
        elif low in _OF_NOUNS and i + 1 < len(tokens) and tokens[i + 1][0].lower() == "of":
            i += 2
            skipped = True
        else:
            break
    if i >= len(tokens) or _defers_to_acronym(text, tokens[i][1]):
        return None
    first = tokens[i][0].rstrip(",;:.")
    if is_coined(first) and not is_generic(first) and not _MODIFIER_SUFFIX_RE.search(first):
        tok = tokens[i]
        nxt = tokens[i + 1][0].rstrip(",;:.") if i + 1 < len(tokens) and tok[0] == first else ""
        if nxt in _NAME_HEADS:  # "the BiDoT Score, a novel metric": the head is part of the name
            return f"{first} {nxt}", tok[1], tokens[i + 1][1] + len(nxt)
        # "propose DGP-Driven Covariance Weighting": a coined modifier that opens a Title-Case name
        run = _title_run(tokens[i:]) if nxt[:1].isupper() and first.endswith(_MODIFIER_ENDS) else 0
        if run >= 2:
            words = [t[0].rstrip(",;:.") for t in tokens[i : i + run]]
            return " ".join(words), tok[1], tok[1] + len(" ".join(words))
        return first, tok[1], tok[1] + len(first)
    n = _title_run(tokens[i:])
    if re.match(
        rf"\s*(?:(?:{_HEADS})\s+)?(?:called|named|dubbed|termed)\s", text[tokens[i + n - 1][2] :] if n else ""
    ):
        return None  # "a Lightweight … Learning framework called Li-FIL": the name follows
    if n >= 2 and not tokens[i][0][:1].islower():
        words = [t[0].rstrip(",;:.") for t in tokens[i : i + n]]
        while words and (is_generic(words[-1]) or words[-1].lower() in _CONNECTORS):
            words.pop()
        if words and words[-1] in _RESULT_HEADS:
            return None  # "a new Variational Policy Gradient Theorem": a result, not a method
        if len(words) >= 2:
            s = tokens[i][1]
            name = text[s : s + len(" ".join(words))]
            return name, s, s + len(name)
    if first[:1].isupper() and re.match(r"[^\s,]+,\s+(?:a|an)\s", text[tokens[i][1] : end + 4]):
        return first, tokens[i][1], tokens[i][1] + len(first)
    # "a strong baseline UniPercept", "a novel metric CR": a head noun, then the name.
    for j in range(i, min(i + 4, len(tokens) - 1)):
        low = tokens[j][0].lower()
        # "a corresponding dataset, GIQA-160K": the head may end with the apposition's comma.
        if re.fullmatch(rf"(?:{_HEADS}|baseline|variant)s?,?", low):
            nxt = tokens[j + 1][0].rstrip(",;:.")
            if is_coined(nxt) and not is_generic(nxt):
                return nxt, tokens[j + 1][1], tokens[j + 1][1] + len(nxt)
            # "an unlearning framework CPU that …": a head noun, then a token that would be a
            # generic acronym elsewhere, then a relative clause: the paper names its framework so.
            after = text[tokens[j + 1][1] + len(nxt) : tokens[j + 1][1] + len(nxt) + 8]
            if (
                is_coined(nxt)
                and nxt.isupper()
                and re.match(r"(?:\s+(?:that|which)\b|,\s+(?:a|an|which)\b)", after)
            ):
                return nxt, tokens[j + 1][1], tokens[j + 1][1] + len(nxt)
            break
        if not low.replace("-", "").isalpha() or low[0].isupper():
            break
    if skipped:
        return None
    # A lower-case name in apposition: "we propose LLM evaluatology, a principled framework".
    m = re.match(r"([\w-]+(?: [\w-]+){0,3}),\s+(?:a|an)\s((?:[\w-]+\s+){0,3}[\w-]+)", text[tokens[i][1] :])
    if m and m.group(1).split()[0].lower() not in _STOP_START and m.start(2) + tokens[i][1] <= end + 4:
        name = m.group(1)
        # Named once is enough when the apposition gives its kind: "subspace camouflage, a defense
        # strategy that …"; otherwise the phrase must recur to read as a name.
        has_head = name == name.lower() and any(
            re.fullmatch(rf"(?:{_HEADS})s?", w.lower()) for w in m.group(2).split()
        )
        if has_head or len(re.findall(re.escape(name), text)) >= 2:
            return name, tokens[i][1], tokens[i][1] + len(name)
    return None


def _named_name(text: str, start: int, end: int) -> tuple[str, int, int] | None:
    """Return the name after "called/named/dubbed": a coined token, a Title-Case run or a short phrase."""
    tokens = [(m.group(0), m.start() + start, m.end() + start) for m in re.finditer(r"\S+", text[start:end])]
    if not tokens:
        return None
    first = tokens[0][0].strip("\"'“”").rstrip(",;:.")
    if is_coined(first) and not is_generic(first):
        s = text.index(first, tokens[0][1])
        return first, s, s + len(first)
    if _defers_to_acronym(text, tokens[0][1]):
        return None
    n = _title_run(tokens)
    if n >= 1 and tokens[0][0][:1].isupper():
        words = [t[0].rstrip(",;:.") for t in tokens[:n]]
        if re.search(r"[^s]s$", words[-1]):  # a plural names a kind of thing, not one method
            return None
        s = tokens[0][1]
        name = text[s : s + len(" ".join(words))].strip("\"'“”")
        return name, s, s + len(name)
    m = re.match(r"[\"“]?([a-z][\w-]*(?: [a-z][\w-]*){0,3})", text[tokens[0][1] : end])
    if m:
        words = m.group(1).split()
        while words and words[-1] in _CONNECTORS | {"based", "which", "that", "to", "where"}:
            words.pop()
        cut = [w for w in words]
        for k, w in enumerate(words):
            if w in {"based", "which", "that", "to", "where", "for", "with", "in", "on", "of"}:
                cut = words[:k]
                break
        if cut:
            name = " ".join(cut)
            if len(re.findall(r"\b" + re.escape(name) + r"\b", text)) >= 2:
                s = text.index(name, tokens[0][1])
                return name, s, s + len(name)
    return None


def _named_plural(clean: str, paren: re.Match[str]) -> bool:
    """Return True for a plural-looking short form that names one thing.

    "Type-Compliant Adaptation Cascades (TACs), a framework that …" (a Title-Case plural long form,
    then an "a/an" apposition), or the direct object of "we propose/introduce".
    """
    before = clean[max(0, paren.start() - 90) : paren.start()].rstrip()
    # "We further propose quasi-arithmetic neural networks (QUANNs)": the object of the cue itself.
    if re.search(
        r"\b(?:we|us\s+to)\s+(?:\w+\s+)?(?:propose|introduce|present|develop|design)s?\s+"
        r"(?:(?:a|an|the|new|novel)\s+)*(?:[\w-]+\s+){0,4}[\w-]+$",
        before,
        re.IGNORECASE,
    ):
        return True
    if not re.match(r",\s+(?:a|an)\s", clean[paren.end() : paren.end() + 5]):
        return False
    return re.search(r"\b[A-Z][a-z]+s$", before) is not None


def _mentions(name: str, text: str) -> list[int]:
    """Return the start of each whole-word mention of ``name`` in ``text``.

    A mention is not preceded by a word character or hyphen, nor followed by a word character or
    a hyphenated continuation (``SCALE`` is not in ``SCALE-up``). A str.find scan: a regex per
    name would be compiled per abstract (thousands of patterns for a corpus).
    """
    out: list[int] = []
    at = text.find(name)
    while at >= 0:
        before = text[at - 1] if at else " "
        after = text[at + len(name) : at + len(name) + 2]
        hyphenated = after[:1] == "-" and (after[1:2].isalnum() or after[1:2] == "_")
        if not (before.isalnum() or before in "_-") and not (
            after[:1].isalnum() or after[:1] == "_" or hyphenated
        ):
            out.append(at)
        at = text.find(name, at + 1)
    return out


def _count(name: str, text: str) -> int:
    return len(_mentions(name, text))


class _Collector:
    def __init__(self, text: str):
        self.text = text
        self.found: dict[str, MethodName] = {}
        #: Acronyms the abstract defines outside any cue (a task or a prior method).
        self.foreign: dict[str, int] = {}
        #: Singulars of plural short forms ("Action Units (AUs)" gives "au"): a kind of thing, not a name.
        self.classes: set[str] = set()

    def add(
        self,
        name: str,
        start: int,
        end: int,
        evidence: str,
        long_form: str | None = None,
        allow_generic: bool = False,
    ) -> None:
        name = name.strip().strip("\"'“”")
        if len(name) < 2 or (is_generic(name) and not allow_generic) or not any(ch.isalpha() for ch in name):
            return
        if evidence in ("cue", "named", "component") and self.foreign.get(fold(name), len(self.text)) < start:
            return
        if len(name.split()) > _MAX_NAME_WORDS:
            return
        key = fold(name)
        if key in self.classes:
            return
        for other in self.found.values():
            if other.long_form and fold(other.long_form) == key:
                if evidence not in other.evidence:
                    other.evidence.append(evidence)
                return
        m = self.found.get(key)
        if m is None:
            found = _mentions(name, self.text)
            if found and found[0] < start:
                start, end = found[0], found[0] + len(name)
            self.found[key] = MethodName(
                name, long_form, start, end, max(1, _count(name, self.text)), [evidence]
            )
            return
        if long_form and (not m.long_form or evidence == "bold"):
            m.long_form = long_form
        if evidence not in m.evidence:
            m.evidence.append(evidence)

    def names(self) -> list[MethodName]:
        """Return the names in text order, without those that only spell out another's short form."""
        long_forms = {fold(m.long_form) for m in self.found.values() if m.long_form}
        out = []
        for key, m in self.found.items():
            if key in long_forms or any(lf.startswith(key + " ") for lf in long_forms):
                continue
            # "Goedel-Prover-V2-8B" is a size of the named "Goedel-Prover-V2", not another name.
            if any(k != key and re.fullmatch(re.escape(k) + r"-\d+(?:\.\d+)?[bmk]", key) for k in self.found):
                continue
            out.append(m)
        return sorted(out, key=lambda m: m.start)


def _bold_names(original: str, pattern: re.Pattern[str] = _BOLD_RE) -> list[str]:
    """Return the bold (or ``pattern``) spans of ``original`` that read as names, not emphasised prose."""
    names = []
    for m in pattern.finditer(original):
        before = original[m.start() - 1 : m.start()]
        after = original[m.end() : m.end() + 1]
        if before.isalnum() or after.isalnum():  # "**E**nvironment-aware": a letter, not a name
            continue
        inner = clean_text(m.group(1) or m.group(2)).strip(" ()[],.;:")
        words = inner.split()
        if not words or len(words) > 6 or sum(ch.isalpha() for ch in inner) < 2:
            continue
        paren = re.fullmatch(r"(.+?)\s*\(([^()]+)\)", inner)
        head = paren.group(1).split() if paren else words
        if (
            all(w[:1].isupper() or is_coined(w) or w.lower() in _CONNECTORS for w in head)
            and head[0][:1].isupper()
        ):
            if len(head) > 1 or is_coined(head[0]) or "-" in head[0]:
                names.append(inner)
    return names


def extract_methods(clean: str, original: str | None = None) -> list[MethodName]:
    """Return the names ``clean`` gives its own contributions, in order of first mention.

    Args:
        clean: the clean text of an abstract (``paperscope.text.clean_text``).
        original: the original abstract, read only for markdown-bold names; optional.

    Returns:
        One :class:`MethodName` per distinct name (case- and superscript-insensitive), each with
        the span of its first mention in ``clean``.

    """
    col = _Collector(clean)
    sentences = split_sentences(clean)
    scopes_by_sentence = [_scopes(s) for s in sentences]
    parens = [(m, _is_short_form(m.group(1))) for m in _PAREN_RE.finditer(clean)]
    reverse: set[int] = set()
    for m, is_sf in parens:
        if is_sf and _PLURAL_SF_RE.match(m.group(1).strip()):
            col.classes.add(fold(m.group(1).strip()[:-1]))
        if is_sf:
            sent_scopes = next(
                sc
                for s, sc in zip(sentences, scopes_by_sentence, strict=True)
                if s.start <= m.start() < s.end
            )
            if not any(s <= m.start() <= e for s, e, _ in sent_scopes):
                sf = m.group(1).strip()
                col.foreign.setdefault(fold(sf), m.start())
                if _PLURAL_SF_RE.match(sf):  # "Action Units (AUs)": "AU" is theirs too
                    col.foreign.setdefault(fold(sf[:-1]), m.start())

    # 1. Names right after a cue or after "called/named".
    for scopes in scopes_by_sentence:
        for start, end, kind in scopes:
            found = _named_name(clean, start, end) if kind == "named" else _object_name(clean, start, end)
            if found:
                col.add(
                    found[0],
                    found[1],
                    found[2],
                    kind,
                    allow_generic=_HEAD_THEN_NAME_RE.search(clean, 0, found[1]) is not None,
                )
            # Quoted Title-Case names and coined tokens in apposition inside the cue's scope.
            for q in _QUOTED_RE.finditer(clean, start, end):
                words = q.group(1).split()
                if 1 <= len(words) <= 6 and all(w[:1].isupper() or w in _CONNECTORS for w in words):
                    col.add(q.group(1).rstrip(",."), q.start(1), q.end(1), "quoted")
            for t in _TOKEN_RE.finditer(clean, start, end):
                tok = t.group(0)
                after = clean[t.end() : t.end() + 6]
                if is_coined(tok) and re.match(r",\s+(?:an?|the)\s", after):
                    col.add(tok, t.start(), t.end(), "cue")

    lowered = clean.lower()
    for m in _OUR_COINED_RE.finditer(clean) if "our " in lowered else ():
        tok = m.group(1)
        if is_coined(tok) and not is_generic(tok):
            col.add(tok, m.start(1), m.end(1), "cue")
    for m in _PROPOSED_RE.finditer(clean) if "resul" in lowered or "proposed" in lowered else ():
        tok = m.group(1)
        if is_coined(tok) and not is_generic(tok):
            col.add(tok, m.start(1), m.end(1), "cue")
    for m in _NAME_OUR_RE.finditer(clean) if ", our " in clean else ():
        tok = m.group(1)
        if is_coined(tok) and not is_generic(tok) and not _PLURAL_SF_RE.match(tok):
            col.add(tok, m.start(1), m.end(1), "cue")
    for m in _OUR_HEAD_NAME_RE.finditer(clean) if "our " in lowered else ():
        if not is_generic(m.group(1)):
            col.add(m.group(1), m.start(1), m.end(1), "cue")
    for m in _CORE_RE.finditer(clean) if " our " in lowered else ():
        found = _object_name(clean, m.end(), min(len(clean), m.end() + 120))
        if found:
            col.add(found[0], found[1], found[2], "cue")
    for sent in sentences:
        if not _WE_RE.search(sent.text):
            continue
        for m in _A_TITLE_NAME_RE.finditer(sent.text):
            name = m.group(1)
            if m.start(1) > 0 and not any(is_generic(w) for w in name.split()):
                col.add(name, sent.start + m.start(1), sent.start + m.end(1), "cue")
    for m in _COLON_NAME_RE.finditer(clean) if ":" in clean else ():
        name = m.group(1)
        if _count(name, clean) >= 2:
            col.add(name, m.start(1), m.end(1), "cue")

    # 2a. Reverse definitions in a cue scope: "we introduce GEPA (Genetic-Pareto)", "KSTER (KeySpace…)".
    for m, _ in parens:
        content = m.group(1).strip()
        prev = _PREV_TOKEN_RE.search(clean, max(0, m.start() - 40), m.start())
        if not prev or not is_coined(prev.group(1)) or is_generic(prev.group(1)):
            continue
        if len(content) <= len(prev.group(1)) or not _spells(prev.group(1), content):
            continue
        sent = next(s for s in sentences if s.start <= m.start() < s.end)
        scopes = scopes_by_sentence[sentences.index(sent)]
        # "… lead to SCALE (Stochastic Column-normAlized …), a simple optimizer": the apposition
        # after the definition says the paper names its own thing, cue verb or not.
        appositive = re.match(r",\s+(?:a|an)\s", clean[m.end() : m.end() + 5]) is not None
        if (
            any(s <= prev.start(1) <= e for s, e, _ in scopes)
            or fold(prev.group(1)) in col.found
            or appositive
        ):
            col.add(prev.group(1), prev.start(1), prev.end(1), "acronym", content)
            reverse.add(m.start())

    # 2b. Acronym definitions inside a cue scope, or in a sentence that names an own method first.
    task_words = {m.group(1) for m in _TASK_WORD_RE.finditer(clean)}
    for _ in range(2):
        own = {fold(m.name) for m in col.found.values()}
        for m, is_sf in parens:
            if not is_sf or m.start() in reverse:
                continue
            sf = m.group(1).strip()
            if is_generic(sf):
                continue
            if _PLURAL_SF_RE.match(sf) and not _named_plural(clean, m):
                continue
            if sf in task_words:
                continue  # "our target ISR task": the acronym names a task, not the paper's method
            if re.match(r"-[A-Za-z]", clean[m.end() : m.end() + 2]):  # "(DEG)-aware": a modifier, not a name
                continue
            if re.match(r"\s+(?:tasks?|problems?|settings?|paradigms?)\b", clean[m.end() : m.end() + 12]):
                continue  # "a new image quality assessment (IQA) task paradigm"
            sent = next(s for s in sentences if s.start <= m.start() < s.end)
            before = clean[sent.start : m.start()].rstrip()
            lf = find_long_form(before, sf)
            if lf is None and _USES_RE.search(before):
                continue  # "adapts a large diffusion transformer (Flux.1)": an existing model
            lf_start = sent.start + lf[0] if lf else m.start()
            scopes = scopes_by_sentence[sentences.index(sent)]
            in_cue = any(
                s <= lf_start and m.end() <= e + 1 and not _SETTING_RE.search(clean, s, lf_start)
                for s, e, _ in scopes
            )  # "we introduce a new problem setting, Cross-Expanding … (XIL)" poses, not proposes
            in_own = False
            if not in_cue and lf and lf[1][:1].isupper():
                head = clean[sent.start : lf_start]
                for name in own:
                    found = re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", fold(head))
                    if found:
                        between = head[found.start() :]
                        if not _PRIOR_RE.search(between) and _COMPONENT_RE.search(between):
                            in_own = True
            # "By aligning semantics within instances (Ins2Sem) …, we achieve": an "A-to-B" coinage
            # defined in a sentence the authors speak in names one of their own steps.
            coinage = _TO_COINAGE_RE.fullmatch(sf) is not None and _WE_RE.search(sent.text) is not None
            if in_cue or in_own or coinage or fold(sf) in own or (lf and fold(lf[1]) in own):
                col.add(sf, m.start(1), m.end(1), "acronym", lf[1] if lf else None)

    # 2c. An acronym the authors define ("we derive a scalable Sobolev gradient ascent (SGA)
    # algorithm", the cue scope cut by "based on" or a lower-case object) that the abstract then
    # calls "our SGA" or reports results for ("PDD achieves …", "SGA outperforms …"), or whose
    # Title-Case long form names a component ("… Aggregation Module (FAM)").
    for m, is_sf in parens:
        sf = m.group(1).strip()
        if not is_sf or fold(sf) in col.found or _PLURAL_SF_RE.match(sf) or is_generic(sf):
            continue
        sent = next(s for s in sentences if s.start <= m.start() < s.end)
        lf = find_long_form(clean[sent.start : m.start()].rstrip(), sf)
        # "We use the Feature Aggregation Module (FAM)", "the model activates a Local Unlearning
        # Module (LUM)": a named component of their own system.
        component = lf is not None and lf[1][:1].isupper() and _COMPONENT_HEAD_RE.search(lf[1]) is not None
        if not component and not _WE_RE.search(sent.text):
            continue
        if component or any(
            t.start() > m.end() and sf in t.groups()
            for t in (*_OUR_TOKEN_RE.finditer(clean), *_RESULT_TOKEN_RE.finditer(clean))
        ):
            col.add(sf, m.start(1), m.end(1), "acronym", lf[1] if lf else None)

    # 3. Bold names in the original markdown, then Title-Case or coined italic ones.
    emphasised: list[tuple[str, str]] = []
    if original and ("**" in original or "__" in original):
        emphasised += [(name, "bold") for name in _bold_names(original)]
    if original and ("*" in original or "\\textit" in original or "\\emph" in original):
        emphasised += [(name, "italic") for name in _bold_names(original, _ITALIC_RE)]
    for name, evidence in emphasised:
        inner = re.fullmatch(r"(.+?)\s*\(([^()]+)\)", name)
        if inner:
            name = inner.group(1)
        pos = clean.find(name)
        if pos < 0:
            continue
        # Italics also mark phenomena ("this leads to a *Hierarchy–Uniformity Conflict*"): an
        # italic name counts only inside the scope of a cue ("we propose *SlaClip*, … *Slack Indicator*").
        if evidence == "italic" and not any(s <= pos <= e for sc in scopes_by_sentence for s, e, _ in sc):
            continue
        tail = clean[pos + len(name) :]
        paren = re.match(r"\s*\*{0,2}\(([^()]{1,30})\)", tail)
        if paren:
            sf = paren.group(1).strip()
            if _is_short_form(sf):
                if not (_PLURAL_SF_RE.match(sf) or is_generic(sf)) and not any(
                    is_generic(w) for w in name.split()
                ):
                    s = pos + len(name) + paren.start(1)
                    col.add(sf, s, s + len(sf), evidence, name)
                continue
        if _PLURAL_SF_RE.match(name) or any(is_generic(w) for w in name.split()[-1:]):
            continue
        if any(w.lower() in _LINK_WORDS for w in name.split()):
            continue  # "More information on **Anonymous Page**: https://…"
        if fold(name) not in {fold(m.long_form or "") for m in col.found.values()}:
            col.add(name, pos, pos + len(name), evidence)

    # 4. Coined components listed by an own name: "STPGC comprises … GStrongCollapse, GEdgeCollapse".
    own_names = [m.name for m in col.found.values()]
    for sent in sentences:
        for name in own_names:
            pos = sent.text.find(name)
            if pos < 0:
                continue
            comp = _COMPONENT_RE.search(sent.text, pos + len(name))
            if not comp or comp.group(0).lower() in {"via", "through", "with"}:
                continue
            rest = sent.text[comp.end() :]
            stop = _PRIOR_RE.search(rest)
            rest = rest[: stop.start()] if stop else rest
            for t in _TOKEN_RE.finditer(rest):
                tok = t.group(0)
                if (
                    is_coined(tok)
                    and not is_generic(tok)
                    and not _PLURAL_SF_RE.match(tok)
                    and not any(ch in "²³" for ch in tok)
                ):
                    s = sent.start + comp.end() + t.start()
                    col.add(tok, s, s + len(tok), "component")
    return col.names()


def primary_method(methods: list[MethodName]) -> MethodName | None:
    """Return the name the abstract is about: most mentions, then cue evidence, then first."""
    if not methods:
        return None
    strength = {"cue": 3, "named": 3, "bold": 2, "acronym": 3, "italic": 1, "quoted": 1, "component": 0}

    def key(m: MethodName) -> tuple[int, int, int]:
        return (-(m.mentions + max(strength.get(e, 0) for e in m.evidence)), m.start, 0)

    return min(methods, key=key)


def defined_short_forms(clean: str) -> set[str]:
    """Return the folded short forms ``clean`` defines in parentheses (``"(MDD)"`` gives ``"mdd"``)."""
    return {fold(m.group(1).strip()) for m in _PAREN_RE.finditer(clean) if _is_short_form(m.group(1))}
