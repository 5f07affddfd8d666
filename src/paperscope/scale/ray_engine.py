"""The Ray engine of ``paperscope build``: the same stages as a Ray Data pipeline.

Three operators stream chunks (:mod:`.stages`) through the cluster: *read* (one task per input
file yields its chunks as it reads them), *prepare* (tasks: repair, clean, skips, full cards)
and *embed* (an actor pool, one actor per CPU of the cluster, each loading the embedding model
once and using one inference stream; it embeds a chunk and writes its shard). Ray Data fuses
*prepare* into the actors' operator (one process does a chunk's cards and embeddings, no copy
between them), so the cluster's CPUs are the actors'. A task or actor
that dies is retried (``max_retries`` / ``max_restarts`` + ``max_task_retries``); a retried
chunk rewrites the same shard name (temporary file, then rename), so nothing is lost or doubled.

Ray is imported only in this module, only when the engine is used; without it the build says
``pip install 'paperscope[ray]'`` in one line. Workers get this process's ``PAPERSCOPE_*``
environment (embedder, model cache), and must have paperscope installed (the same version).
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, PaperscopeError
from . import stages
from .local_engine import ChunkDone, Event, write_prepared

__all__ = ["run_ray", "FAULT_ENV"]

#: Test-only hook: a path; the first embed call that can create this file kills its own worker
#: process (SIGKILL), once per build, so the fault test sees a real worker death mid-build.
FAULT_ENV = "PAPERSCOPE_TEST_KILL_EMBED_WORKER_ONCE"
#: Logical CPUs per task or actor: an embedding actor and a card task share each core, as the
#: actors are the slow stage (about 20 ms a paper against 4 ms for a card) and all would hold
#: every CPU otherwise, leaving none for the tasks feeding them (the pipeline would stall).
_ACTOR_CPUS = 0.5
_TASK_CPUS = 0.5
_READ_CPUS = 0.25
#: CPUs of a GPU embedding actor: the tokenizer's threads and the host side of the device.
_GPU_ACTOR_CPUS = 1.0
#: Planning rate of one CPU embedding actor, papers/s: the 100k build's 30 papers/s per actor
#: (README, "Large libraries"), the int8 model on one core.
CPU_ACTOR_RATE = 30.0


def _token_given() -> bool:
    return bool(os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH"))


def _import_ray(address: str | None = None) -> Any:
    """Import Ray (and Ray Data); joining ``address`` with a token given, in token mode.

    Ray sends ``RAY_AUTH_TOKEN`` only when ``RAY_AUTH_MODE=token``, which it reads once, when
    it is imported: a driver given the token alone timed out joining a token-authenticated
    cluster ("Failed to connect to Ray cluster", 60 s). So the mode is set here, before the
    import, when a token is given, an address is joined and the mode is not set already.

    Raises:
        InputError: Ray is not installed.
    """
    if address and _token_given() and "RAY_AUTH_MODE" not in os.environ and "ray" not in sys.modules:
        os.environ["RAY_AUTH_MODE"] = "token"
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError:
        raise InputError("the ray engine needs Ray: pip install 'paperscope[ray]'") from None
    # Ray Data logs each execution's start, end and settings at INFO/WARNING; the build prints its own.
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    return ray


def _row(file: int, start: int, payload: bytes, error: str = "") -> dict[str, np.ndarray]:
    return {
        "file": np.array([file], dtype=np.int64),
        "start": np.array([start], dtype=np.int64),
        "payload": np.array([payload], dtype=object),
        "error": np.array([error], dtype=object),
    }


def _read(
    batch: dict[str, np.ndarray], column_map: Mapping[str, str] | None
) -> Iterator[dict[str, np.ndarray]]:
    """Yield one row per chunk of each input file in ``batch`` (an error row if the file fails)."""
    for file, path, fmt in zip(batch["file"], batch["path"], batch["fmt"], strict=True):
        item = stages.Input(index=int(file), path=str(path), fmt=str(fmt))
        try:
            for start, chunk in stages.read_chunks(item, column_map):
                yield _row(item.index, start, pickle.dumps(chunk))
        except InputError as exc:
            yield _row(item.index, -1, b"", str(exc))


def _map_chunks(batch: dict[str, np.ndarray], step: Callable[[int, int, Any], Any]) -> dict[str, np.ndarray]:
    """Apply ``step(file, start, payload)`` to each row of ``batch`` (payloads pickled); error rows pass."""
    out = []
    for file, start, payload, error in zip(
        batch["file"], batch["start"], batch["payload"], batch["error"], strict=True
    ):
        if error:
            out.append(_row(int(file), int(start), b"", str(error)))
        else:
            out.append(
                _row(int(file), int(start), pickle.dumps(step(int(file), int(start), pickle.loads(payload))))
            )
    return {key: np.concatenate([r[key] for r in out]) for key in ("file", "start", "payload", "error")}


def _prepare(batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Prepare the chunk of each row (normalise, skips, full cards)."""

    def step(file: int, start: int, items: list[Any]) -> stages.Prepared:
        fmt = next((i.source.format for i in items if hasattr(i, "source")), "")
        return stages.prepare(file, start, items, fmt)

    return _map_chunks(batch, step)


class _EmbedWriter:
    """An embedding actor: loads the model once, then embeds chunks and writes their shards."""

    def __init__(self, out_dir: str, embedder_name: str, cpus: int) -> None:
        self.out_dir = Path(out_dir)
        self.embedder = stages.load_embedder(embedder_name, cpus)
        import ray

        self.node = ray.get_runtime_context().get_node_id()
        gpus = ray.get_gpu_ids()
        self.device = "GPU " + ",".join(str(g) for g in gpus) if gpus else "CPU"

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        def step(_file: int, _start: int, prepared: stages.Prepared) -> ChunkDone:
            _maybe_die()
            done = write_prepared(self.out_dir, prepared, self.embedder)
            done.node, done.device = self.node, self.device
            return done

        return _map_chunks(batch, step)


def _bound_writer(out_dir: str, embedder_name: str, cpus: int) -> type[_EmbedWriter]:
    """Return an ``_EmbedWriter`` class that takes no constructor arguments.

    Constructor arguments would sit in the object store, where Ray warns they may be lost when a
    restarted actor needs them.
    """

    class BoundWriter(_EmbedWriter):
        def __init__(self) -> None:
            super().__init__(out_dir, embedder_name, cpus)

    return BoundWriter


def _maybe_die() -> None:
    """The fault test's hook (:data:`FAULT_ENV`): kill this worker process the first time only."""
    marker = os.environ.get(FAULT_ENV)
    if not marker:
        return
    try:
        handle = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.write(handle, str(os.getpid()).encode())
    os.close(handle)
    os.kill(os.getpid(), signal.SIGKILL)


#: Seconds to wait for a TCP connection to a ``--address HOST:PORT`` before saying it is unreachable.
_CONNECT_TIMEOUT_S = 5.0


def _check_reachable(address: str) -> None:
    """Raise PaperscopeError in one line when ``HOST:PORT`` (or ``ray://HOST:PORT``) takes no connection.

    Without it, ``ray.init`` on a wrong address retries for minutes, logging every attempt.
    ``auto`` (Ray finds the cluster of this machine) is left to Ray.
    """
    import socket

    if address == "auto" or ":" not in address:
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=_CONNECT_TIMEOUT_S):
            return
    except ValueError:
        raise PaperscopeError(f"--address {address}: not HOST:PORT, ray://HOST:PORT or auto") from None
    except OSError as exc:
        raise PaperscopeError(
            f"--address {address}: no Ray cluster answers there ({exc.strerror or exc}); start one with"
            " `ray start --head` or check the address"
        ) from None


def _runtime_env() -> dict[str, Any]:
    """The environment workers get: this process's ``PAPERSCOPE_*`` variables (embedder, model cache)."""
    return {"env_vars": {k: v for k, v in os.environ.items() if k.startswith("PAPERSCOPE_")}}


#: Joins by ``ray://`` tried before giving up: the Ray Client server starts a process per client,
#: which failed now and then on a loaded 2-core machine ("Initialization failure from server",
#: 1 of 3 joins in tests/scale/test_ray_token.py) and came up on the next try.
_CLIENT_TRIES = 3


@contextlib.contextmanager
def _quiet_native_stderr() -> Iterator[None]:
    """Send file descriptor 2 to /dev/null while Ray starts, then restore it.

    Ray's C++ core writes a line of its own when it starts ("logging.cc: Set ray log level from
    environment variable RAY_BACKEND_LOG_LEVEL"), straight to the descriptor, past Python's
    ``sys.stderr``; the build prints its own plan instead. Errors still reach the caller as
    exceptions, with one line of ours.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _join(ray: Any, address: str, options: dict[str, Any]) -> None:
    """``ray.init`` on ``address``; a ``ray://`` join whose server process failed to start is tried again."""
    tries = _CLIENT_TRIES if address.startswith("ray://") else 1
    for attempt in range(1, tries + 1):
        try:
            with _quiet_native_stderr():
                ray.init(address=address, **options)
            return
        except ConnectionError as exc:
            if attempt == tries or "Initialization failure from server" not in str(exc):
                raise
            with contextlib.suppress(Exception):
                ray.shutdown()


def _init(ray: Any, address: str | None, cpus: int | None) -> bool:
    """Connect to (or start) a cluster; return True when this call started the connection."""
    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # Ray's C++ core logs a warning per actor pool that restarts are allowed (Ray Data's own
    # setting, ray-project/ray#53727); failures still reach this process as exceptions.
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")
    options: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": "ERROR",
    }
    if not (address or "").startswith("ray://"):
        # ray:// gives the environment to its driver task instead (:func:`_events_from_cluster`):
        # a client's job-level runtime_env made the Ray Client server's per-client process fail
        # to start on a two-node cluster ("Initialization failure from server", Ray 2.60).
        options["runtime_env"] = _runtime_env()
    if address:
        host = address.removeprefix("ray://").rsplit(":", 1)[0]
        if host in ("127.0.0.1", "localhost"):
            # A cluster on loopback: this driver is on its node there too, not on the LAN address.
            options["_node_ip_address"] = "127.0.0.1"
        _check_reachable(address)
        try:
            _join(ray, address, options)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            first = (str(exc).strip().splitlines() or [""])[0][:300]
            hint = ""
            if not _token_given():
                hint = (
                    "; if the cluster uses token authentication (Ray's default for `ray start` since 2.52),"
                    " set RAY_AUTH_TOKEN to its token (`ray get-auth-token` on a cluster node prints it)"
                )
            elif os.environ.get("RAY_AUTH_MODE") != "token":
                hint = "; a token is given: set RAY_AUTH_MODE=token before Ray is imported"
            raise PaperscopeError(
                f"--address {address}: cannot join the Ray cluster: {first}{hint}"
            ) from None
    else:
        # "local" always starts a new cluster for this build, whatever RAY_ADDRESS says.
        with _quiet_native_stderr():
            ray.init(address="local", num_cpus=cpus, _node_ip_address="127.0.0.1", **options)
    return True


def _plan(resources: Mapping[str, float], embedder_name: str) -> tuple[int, dict[str, float]]:
    """Return the embedding actors and the resources of each for a cluster of ``resources``.

    A GPU embedder (:data:`paperscope.index.embed.GPU_EMBEDDERS`) gets one actor per GPU of the
    cluster, each holding one GPU and one CPU; reading and cards run as CPU tasks beside them
    (Ray Data does not fuse tasks into actors of other resources). Otherwise one actor per CPU,
    half a CPU each, with the cards fused into them.

    Raises:
        PaperscopeError: a GPU embedder, and the cluster has no GPU.
    """
    from ..index.embed import GPU_EMBEDDERS

    if embedder_name in GPU_EMBEDDERS:
        gpus = int(resources.get("GPU", 0))
        if gpus < 1:
            raise PaperscopeError(
                "--device cuda: the Ray cluster has no GPU (`ray status` lists its resources);"
                " start its GPU nodes with their GPUs, or build with --device cpu"
            )
        return gpus, {"num_gpus": 1, "num_cpus": _GPU_ACTOR_CPUS}
    return max(1, int(resources.get("CPU", 1))), {"num_cpus": _ACTOR_CPUS}


def _plan_line(resources: Mapping[str, float], embedder_name: str, actors: int, nodes: int) -> str:
    """Return the one line ``build`` prints before it starts: actors, devices, the expected rate."""
    from ..index.embed import GPU_EMBEDDERS, GPU_RATES

    cpus = int(resources.get("CPU", 0))
    if embedder_name in GPU_EMBEDDERS:
        rate = GPU_RATES.get(embedder_name, 0.0) * actors
        return (
            f"plan: {actors} embedding actor{'s' * (actors != 1)} with one GPU each ({embedder_name});"
            f" reading and cards as tasks on {cpus} CPUs of {nodes} node{'s' * (nodes != 1)};"
            f" expected about {rate:,.0f} papers/s (cards: about 250 papers/s per CPU)"
        )
    return (
        f"plan: {actors} embedding actor{'s' * (actors != 1)} on the CPUs of {nodes} node{'s' * (nodes != 1)}"
        f" ({embedder_name}, cards in the same processes); expected about {CPU_ACTOR_RATE * actors:,.0f} papers/s"
    )


def run_ray(
    inputs: list[stages.Input],
    out_dir: Path,
    column_map: Mapping[str, str] | None,
    embedder_name: str,
    address: str | None = None,
    cpus: int | None = None,
    on_read: Callable[[int], None] | None = None,
) -> Iterator[Event]:
    """Build the chunks of ``inputs`` on Ray; yield events as :func:`.local_engine.run_local` does.

    Args:
        inputs: the files to build (format resolved, index set).
        out_dir: the shard folder; every worker must see it at this path (one machine, or a
            shared file system).
        column_map: field → column names, as for ingest.
        embedder_name: the registered embedder each actor loads.
        address: an existing cluster (``auto``, ``HOST:6379``, ``ray://HOST:10001``); None
            starts a local one on 127.0.0.1 with ``cpus`` CPUs (default all) for this build.
        cpus: CPUs of the local cluster started when ``address`` is None.
        on_read: called with each finished chunk's item count.

    Yields ``("plan", line)`` first (:func:`_plan_line`), then the chunks.

    Raises:
        InputError: Ray is not installed (``pip install 'paperscope[ray]'``).
        PaperscopeError: a GPU embedder and a cluster without GPUs, or the build failed.
    """
    ray = _import_ray(address)
    if not inputs:
        return
    from ..index.embed import prepare_embedder

    prepare_embedder(embedder_name)  # once here rather than in every actor at once (local clusters)
    started = _init(ray, address, cpus)
    try:
        if address and address.startswith("ray://"):
            events = _events_from_cluster(ray, inputs, out_dir, column_map, embedder_name)
        else:
            events = _events(inputs, out_dir, column_map, embedder_name)
        try:
            for kind, value in events:
                if kind == "chunk" and on_read:
                    on_read(value.read)
                yield kind, value
        except Exception as exc:
            if not type(exc).__module__.startswith("ray"):
                raise
            # Retries are spent or the cluster failed: one line, never Ray's traceback. Shards
            # already written are whole (renamed into place); the same build again redoes the rest.
            first = (str(exc).strip().splitlines() or [""])[0][:300]
            raise PaperscopeError(
                f"the Ray build failed ({type(exc).__name__}: {first}); the shards written so far"
                " are kept, and running the same build again finishes it"
            ) from None
    finally:
        if started:
            ray.shutdown()


def _events(
    inputs: list[stages.Input], out_dir: Path, column_map: Mapping[str, str] | None, embedder_name: str
) -> Iterator[Event]:
    """Run the pipeline on the connected cluster; yield ``("plan", line)``, then chunks and errors.

    Runs where Ray Data can execute a dataset: this driver, or (``ray://``) a task on the cluster.
    """
    import ray

    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    # One chunk per block: Ray Data gathers a generator's outputs into blocks of up to 128 MiB,
    # so one input file's ~60 chunks travelled as one block whose shards were reported only
    # when all were written (100k records: over Ray's 30-minute no-progress timeout, 2026-12-01).
    context.target_max_block_size = 1
    if hasattr(context, "print_on_execution_start"):  # not in every 2.x release
        context.print_on_execution_start = False
    resources = ray.cluster_resources()
    actors, actor_resources = _plan(resources, embedder_name)
    nodes = sum(1 for node in ray.nodes() if node.get("Alive"))
    yield "plan", _plan_line(resources, embedder_name, actors, nodes)
    files = [{"file": i.index, "path": i.path, "fmt": i.fmt or ""} for i in inputs]
    ds = ray.data.from_items(files, override_num_blocks=len(files))
    ds = ds.map_batches(
        _read,
        batch_size=1,
        batch_format="numpy",
        fn_kwargs={"column_map": dict(column_map) if column_map else None},
        num_cpus=_READ_CPUS,
    )
    ds = ds.map_batches(_prepare, batch_size=1, batch_format="numpy", num_cpus=_TASK_CPUS)
    ds = ds.map_batches(
        _bound_writer(str(out_dir), embedder_name, 1),
        batch_size=1,
        batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=actors),
        **actor_resources,
    )
    with warnings.catch_warnings():
        # Ray Data warns when an actor pool gets fewer inputs than actors (a build of one small
        # file): it runs anyway, with the actors that have work.
        warnings.filterwarnings(
            "ignore", message="The minimum number of concurrent actors", category=UserWarning
        )
        for row in ds.iter_rows():
            if row["error"]:
                yield "error", (int(row["file"]), str(row["error"]))
                continue
            done: ChunkDone = pickle.loads(row["payload"])
            yield "chunk", done


def _drive(
    inputs: list[stages.Input],
    out_dir: str,
    column_map: Mapping[str, str] | None,
    embedder_name: str,
    queue: Any,
) -> None:
    """The driver of a ``ray://`` build, as a task on the cluster: events go into ``queue``.

    Ray Client cannot execute a Ray Data dataset (its stub worker has no core worker:
    ``AttributeError: 'Worker' object has no attribute 'core_worker'``) nor stream a generator
    task, so the pipeline runs here and its events travel through a ``ray.util.queue.Queue``
    (an actor); ``("end", "")`` or ``("failed", reason)`` closes them.
    """
    try:
        for event in _events(inputs, Path(out_dir), column_map, embedder_name):
            queue.put(event)
    except Exception as exc:  # the client raises it as a PaperscopeError
        first = (str(exc).strip().splitlines() or [""])[0][:300]
        queue.put(("failed", f"{type(exc).__name__}: {first}"))
        return
    queue.put(("end", ""))


def _events_from_cluster(
    ray: Any,
    inputs: list[stages.Input],
    out_dir: Path,
    column_map: Mapping[str, str] | None,
    embedder_name: str,
) -> Iterator[Event]:
    """Yield the events of :func:`_drive` run as a task on a cluster joined by ``ray://``."""
    from ray.util.queue import Empty, Queue

    queue = Queue()
    task = ray.remote(num_cpus=0, max_retries=0, runtime_env=_runtime_env())(_drive).remote(
        inputs, str(out_dir), dict(column_map) if column_map else None, embedder_name, queue
    )
    while True:
        try:
            kind, value = queue.get(timeout=5.0)
        except Empty:
            ready, _ = ray.wait([task], timeout=0)
            if ready:
                ray.get(task)  # raises the task's error, if it died before closing the queue
                raise PaperscopeError("the Ray build's driver task ended without a result") from None
            continue
        if kind == "end":
            return
        if kind == "failed":
            if value.startswith("PaperscopeError: "):
                raise PaperscopeError(value.removeprefix("PaperscopeError: "))
            raise PaperscopeError(
                f"the Ray build failed ({value}); the shards written so far are kept, and running"
                " the same build again finishes it"
            )
        yield kind, value
