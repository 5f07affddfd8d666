"""A small title-less list and its program in the official ICML 2026 CSV shape, for the /schedule tests.

Six papers, each named by its method; the program (Seoul, +09:00) lists QuokkaFormer and
Wombat Sampling twice (their Oral and Poster rows). QuokkaFormer's and Wombat Sampling's orals
are both at 10:00 on 14 July (a clash); Platypus and Echidna share poster session 1 (no clash);
Koala's poster on 15 July overlaps Dingo's oral (a clash). Numbat has no program entry.
"""

from __future__ import annotations

import csv
from pathlib import Path

from paperscope import Library

ABSTRACTS = {
    "quokka": "We introduce QuokkaFormer, a transformer whose attention heads are pruned by a learned lattice"
    " of gates. QuokkaFormer keeps 97% of the accuracy of its dense parent on ImageNet while running 2.1"
    " times faster on a laptop CPU.",
    "wombat": "Wombat sampling draws minibatches for contrastive pretraining from a burrow-shaped curriculum"
    " over cluster centroids. On CIFAR-10 wombat sampling halves the number of steps to a given"
    " linear-probe accuracy.",
    "platypus": "PlatypusGNN predicts molecular properties with a graph network that mixes electric and"
    " venom-inspired message passing. PlatypusGNN sets a new state of the art on QM9 energies.",
    "echidna": "EchidnaDiff is a diffusion model for audio that denoises spectrogram spines in parallel."
    " EchidnaDiff generates ten seconds of speech in one hundred milliseconds.",
    "koala": "KoalaRL is an offline reinforcement learning method that replays eucalyptus-sorted"
    " trajectories during long sleep phases. KoalaRL doubles the return on D4RL locomotion tasks.",
    "dingo": "Dingo distils a dataset into a few synthetic images by matching wild training trajectories."
    " Dingo distillation reaches 70% accuracy on CIFAR-100 with ten images per class.",
    "numbat": "NumbatTok tokenises termite-mound text for long-context language models; NumbatTok cuts"
    " sequence length by a third on PG-19 without loss in perplexity.",
}

TITLES = {
    "quokka": "QuokkaFormer: Pruning Attention Heads with a Learned Lattice of Gates",
    "wombat": "Wombat Sampling: Burrow-Shaped Curricula for Contrastive Pretraining",
    "platypus": "PlatypusGNN: Venom-Inspired Message Passing for Molecular Properties",
    "echidna": "EchidnaDiff: Parallel Spectrogram Diffusion for Fast Speech",
    "koala": "KoalaRL: Offline Reinforcement Learning with Eucalyptus-Sorted Sleep Replay",
    "dingo": "Dingo: Dataset Distillation by Matching Wild Training Trajectories",
}

COLUMNS = (
    "event_id,event_type,title,decision,topic,session,starttime,endtime,url,paper_url,authors,institutions"
).split(",")

#: (event id, kind, paper, session, day of July, start, end)
ROWS = [
    (1001, "Oral", "quokka", "Oral 1A Efficient Models", 14, "10:00", "10:15"),
    (1002, "Oral", "wombat", "Oral 1B Representation Learning", 14, "10:00", "10:15"),
    (2001, "Poster", "quokka", "Poster Session 1 East", 14, "11:00", "13:30"),
    (2002, "Poster", "platypus", "Poster Session 1 East", 14, "11:00", "13:30"),
    (2003, "Poster", "echidna", "Poster Session 1 East", 14, "11:00", "13:30"),
    (2004, "Poster", "wombat", "Poster Session 2 West", 14, "16:30", "19:00"),
    (1003, "Oral", "dingo", "Oral 3C Data-Centric ML", 15, "10:00", "10:15"),
    (2005, "Poster", "koala", "Poster Session 3 East", 15, "09:30", "12:00"),
    (2006, "Poster", "dingo", "Poster Session 4 West", 15, "14:00", "16:30"),
]


def write_program(path: Path) -> Path:
    """Write the program CSV (header and the rows of :data:`ROWS`)."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for event, kind, key, session, day, start, end in ROWS:
            writer.writerow(
                [
                    event,
                    kind,
                    TITLES[key],
                    "Accept (oral)" if key in ("quokka", "wombat", "dingo") else "Accept (poster)",
                    "Deep Learning",
                    session,
                    f"2026-07-{day}T{start}:00+09:00",
                    f"2026-07-{day}T{end}:00+09:00",
                    f"https://icml.cc/virtual/2026/{kind.lower()}/{event}",
                    f"https://openreview.net/forum?id={key}2026",
                    f"{key.capitalize()} Author; Second Author",
                    "Seoul National University",
                ]
            )
    return path


def planned_library(folder: Path) -> tuple[Library, dict[str, str]]:
    """Return a library of the seven papers enriched from the program, and ``{key: paper_id}``.

    Every paper but Numbat is kept (triage ``keep``).
    """
    listing = folder / "tiny.txt"
    listing.write_text("TinyML 2026 Papers\n\n" + "\n\n".join(ABSTRACTS.values()) + "\n", encoding="utf-8")
    lib = Library(folder / "plan.db")
    lib.ingest([listing])
    lib.enrich(write_program(folder / "program.csv"), timezone="Asia/Seoul")
    ids = {
        key: next(p.paper_id for p in lib.papers() if p.abstract == text) for key, text in ABSTRACTS.items()
    }
    for key in TITLES:
        lib.set_triage(ids[key], "keep")
    return lib, ids
