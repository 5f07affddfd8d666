"""Rule candidates of method names: the cue rules that were the extractor up to version 0.8.

Each rule proposes a name with its evidence (``cue``, ``named``, ``acronym``, ``bold``,
``italic``, ``quoted``, ``component``); the learned scorer (:mod:`.method_model`) reads the
evidence as features and decides. Rejected here already: parenthetical citations, table/equation
references, "(ours)", enumerations, plural acronyms (``LLMs``) and the generic terms of
``data/generic_terms.txt`` (bugs/CASES.md case 19).
"""

from __future__ import annotations

import re

from ..text import clean_text, fold
from ._spans import is_coined, is_generic, split_sentences
from .method_candidates import MethodName
from .method_candidates import mentions as _mentions
from .method_cues import (
    _A_TITLE_NAME_RE,
    _BOLD_RE,
    _COLON_NAME_RE,
    _COMPONENT_HEAD_RE,
    _COMPONENT_RE,
    _CORE_RE,
    _HEAD_THEN_NAME_RE,
    _ITALIC_RE,
    _LINK_WORDS,
    _MAX_NAME_WORDS,
    _NAME_OUR_RE,
    _OUR_COINED_RE,
    _OUR_HEAD_NAME_RE,
    _OUR_TOKEN_RE,
    _PLURAL_SF_RE,
    _PRIOR_RE,
    _PROPOSED_RE,
    _QUOTED_RE,
    _RESULT_TOKEN_RE,
    _SETTING_RE,
    _TASK_WORD_RE,
    _TO_COINAGE_RE,
    _TOKEN_RE,
    _USES_RE,
    _WE_RE,
    _named_name,
    _named_plural,
    _object_name,
    _scopes,
)
from .method_longform import (
    _CONNECTORS,
    _PREV_TOKEN_RE,
    PAREN_RE,
    find_long_form,
    is_short_form,
    spells,
)


def _count(name: str, text: str) -> int:
    return len(_mentions(name, text))


#: A folded name with a model size: "goedel-prover-v2-8b" is a size of "goedel-prover-v2".
_SIZED_KEY_RE = re.compile(r"(.+)-\d+(?:\.\d+)?[bmk]")


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
            sized = _SIZED_KEY_RE.fullmatch(key)
            if sized and sized.group(1) in self.found:
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


def rule_methods(clean: str, original: str | None = None) -> list[MethodName]:
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
    parens = [(m, is_short_form(m.group(1))) for m in PAREN_RE.finditer(clean)]
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
        if len(content) <= len(prev.group(1)) or not spells(prev.group(1), content):
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
    task_words = {m.group(1) for m in _TASK_WORD_RE.finditer(clean)} if parens else set()
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
            if is_short_form(sf):
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
