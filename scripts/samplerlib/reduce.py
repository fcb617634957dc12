"""The profiles of a job read in parallel: over the CPUs of this machine
(multiprocessing), or over the processes of an MPI program (mpi4py:
`mpirun -np K sampler-report --mpi app.*.prof`), each reading its share of
the profiles where they lie and the parts joined by a binomial tree of
messages (log2 K steps), so that no process receives more than its
children's parts.

map_reduce(read, join, paths): read(chunk of paths) gives one part (an
aggregate), join(a, b) joins two parts (associative; a's profiles come
before b's); the result is the join of every part in the order of paths,
whichever the number of processes: the same numbers as one process.
Under MPI only the process of rank 0 gets the result (the others None,
and print nothing).

Signals: SIGINT and SIGTERM (cli.catch_term) raise in this process; the
workers are terminated on the way out, their exporters see their pipes
close.
"""

from __future__ import annotations

import os
import signal
from typing import Any, Callable, Sequence

from .cli import SamplerError

MPI_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE")


def cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def under_mpirun() -> bool:
    """Started by mpirun (or srun with PMI) as one of several processes."""
    for var in MPI_SIZE_VARS:
        v = os.environ.get(var, "")
        if v.isdigit() and int(v) > 1:
            return True
    return False


def _chunks(paths: Sequence[str], parts: int) -> list[list[str]]:
    """paths cut into at most parts runs of consecutive paths, sizes alike."""
    parts = max(1, min(parts, len(paths)))
    size, extra = divmod(len(paths), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(list(paths[start:end]))
        start = end
    return out


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent tells the workers to stop
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _call(task: tuple[Callable[[list[str]], Any], list[str]]) -> tuple[bool, Any]:
    read, chunk = task
    try:
        return True, read(chunk)
    except SamplerError as e:
        return False, str(e)


def _join_all(parts: list[Any], join: Callable[[Any, Any], Any]) -> Any:
    out = parts[0]
    for p in parts[1:]:
        out = join(out, p)
    return out


def _local(
    read: Callable[[list[str]], Any],
    join: Callable[[Any, Any], Any],
    paths: Sequence[str],
    jobs: int,
) -> Any:
    """Over jobs processes of this machine (1: in this one)."""
    jobs = max(1, min(jobs, len(paths)))
    if jobs == 1:
        return read(list(paths))
    import multiprocessing

    # several chunks a worker: a slow profile does not hold the others up
    tasks = [(read, c) for c in _chunks(paths, 4 * jobs)]
    ctx = multiprocessing.get_context("fork")
    pool = ctx.Pool(jobs, initializer=_worker_init)
    try:
        parts = []
        for ok, part in pool.imap(_call, tasks):
            if not ok:
                raise SamplerError(part)
            parts.append(part)
        pool.close()
    except BaseException:
        pool.terminate()  # SIGTERM to each worker: their exporters see their pipes close
        raise
    finally:
        pool.join()
    return _join_all(parts, join)


def _mpi(
    read: Callable[[list[str]], Any], join: Callable[[Any, Any], Any], paths: Sequence[str]
) -> Any:
    try:
        from mpi4py import MPI
    except ImportError:
        raise SamplerError(
            "--mpi needs mpi4py (apt-get install python3-mpi4py, or make deps)"
        )
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    mine = _chunks(paths, size)
    ok, part = _call((read, mine[rank])) if rank < len(mine) else (True, None)
    # binomial tree: at step s, rank r (r % 2s == s) sends to r - s
    step = 1
    while step < size:
        if rank % (2 * step) == step:
            comm.send((ok, part), dest=rank - step, tag=step)
            return None
        if rank % (2 * step) == 0 and rank + step < size:
            ok2, other = comm.recv(source=rank + step, tag=step)
            if ok and not ok2:
                ok, part = False, other
            elif ok and other is not None:
                part = other if part is None else join(part, other)
        step *= 2
    if not ok:
        raise SamplerError(part)
    return part


def map_reduce(
    read: Callable[[list[str]], Any],
    join: Callable[[Any, Any], Any],
    paths: Sequence[str],
    jobs: int | None = None,
    mpi: bool = False,
) -> Any:
    """The join of read's parts over paths (see the module's doc); under
    MPI None on every process but rank 0."""
    if mpi:
        return _mpi(read, join, paths)
    return _local(read, join, paths, cpus() if jobs is None else jobs)
