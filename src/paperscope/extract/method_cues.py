"""Cue scopes of method names: where "we propose X", "called X", "our framework, X" put a name.

Nadeau & Sekine's survey of cue-based name spotting (2007) for the idea; the cue list is ours.
:func:`object_name` and :func:`named_name` read the name right after a cue; the rule generator
(:mod:`.method_rules`) and the features (:mod:`.method_features`) use the scopes.
"""

from __future__ import annotations

import re

from ._spans import Sentence, is_coined, is_generic
from .method_longform import (
    _CONNECTORS,
    _OF_NOUNS,
    _SKIP,
    _STOP_START,
    is_short_form,
)

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
_BOLD_RE = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
#: Markdown italics and \textit/\emph: "we propose *SlaClip* … a post-hoc *Slack Indicator*".
_ITALIC_RE = re.compile(
    r"(?<![*\w])\*(?=[^\s*])([^*\n]{2,60}?)(?<=[^\s*])\*(?![*\w])|\\(?:textit|emph)\{([^{}]{2,60})\}"
)
_QUOTED_RE = re.compile(r"[\"“]([A-Z][^\"”]{2,60})[\"”]")
_TOKEN_RE = re.compile(r"[A-Za-z0-9²³⁴][\w²³⁴+\-]*[\w²³⁴+]|[A-Za-z]")
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
    return bool(m and is_short_form(m.group(1)) and not _PLURAL_SF_RE.match(m.group(1).strip()))


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
