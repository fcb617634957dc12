"""The run aggregate: one profile's sums per (pid, tid, dso, symbol), the
layout of those sums, and their form in the result cache.  blockagg fills
it from a profile's rows, agg loads, caches and groups it, metrics and job
read it; it depends on none of them.

Accumulator layout (one list of floats per key): base fields, then 8 per
energy-like channel, then 2 per reading channel, then 1 per counter channel.
  N, CPU, CPU2, WALL  thread-samples, CPU time (s) and its squares, the
                      thread-samples' intervals (s)
  per energy or power channel (at BASE + PER_ENERGY * channel):
    E, E2      the key's energy (J) and its squares
    SE, SE2    the energy of the samples that ended in the key, its squares
    SEW        SE times the interval; SW, SW2  the intervals, their squares
    EV         the attribution model's variance of the key's energy (J^2;
               the exporter's model_var, 0 from files without it)
  per reading channel: the sum of the readings and their count
  per counter channel: the sum of the counts
"""

from __future__ import annotations

from typing import Any, Dict, Tuple

from . import VERSION

N, CPU, CPU2, WALL = range(4)
BASE = 4
E, E2, SE, SE2, SEW, SW, SW2, EV = range(8)
PER_ENERGY = 8
CACHE_FORMAT = 5  # 2: CSV v2 exit rows in the CPU and counter sums; 3: EV; 4: threads;
# 5: the refused readings by channel name

Key = Tuple[Any, ...]  # (pid, tid, dso, symbol)
Channel = Dict[str, str]  # {name, kind, unit}


class RunAgg:
    """One profile, aggregated per (pid, tid, dso, symbol)."""

    def __init__(self) -> None:
        self.path = ""  # the profile as named on the command line
        self.host: dict[str, str] = {}
        self.processes: dict[int, dict[str, str]] = {}
        self.threads: dict[tuple[int, int], str] = {}  # (pid, tid) -> last name, if renamed
        self.stats: dict[str, Any] = {}
        # channel name -> readings the meter's plug-in refused (docs/PLUGINS.md)
        self.refused: dict[str, int] = {}
        self.energy: list[Channel] = []  # energy/power channels
        self.readings: list[Channel] = []  # current/voltage channels
        self.counters: list[Channel] = []  # counter channels
        # the profile's channels themselves (csvprof.Channel), while it is read
        self.energy_channels: list[Any] = []
        self.reading_channels: list[Any] = []
        self.counter_channels: list[Any] = []
        self.keys: dict[Key, list[float]] = {}  # (pid, tid, dso, symbol) -> accumulator
        self.samples = 0
        self.width = BASE
        # its energy is its part of a node shared with other profiles
        # (exported with them as --node-peer: job.load_split)
        self.node_split = False

    def off_reading(self, k: int) -> int:
        return BASE + PER_ENERGY * len(self.energy) + 2 * k

    def off_counter(self, m: int) -> int:
        return BASE + PER_ENERGY * len(self.energy) + 2 * len(self.readings) + m

    def to_json(self) -> dict[str, Any]:
        return {
            "format": CACHE_FORMAT,
            "version": VERSION,
            "host": self.host,
            "processes": {str(k): v for k, v in self.processes.items()},
            "threads": [[pid, tid, comm] for (pid, tid), comm in self.threads.items()],
            "stats": self.stats,
            "refused": self.refused,
            "energy": self.energy,
            "readings": self.readings,
            "counters": self.counters,
            "samples": self.samples,
            "keys": [[list(k), v] for k, v in self.keys.items()],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], path: str) -> "RunAgg":
        run = cls()
        run.path = path
        run.host = data["host"]
        run.processes = {int(k): v for k, v in data["processes"].items()}
        run.threads = {(int(pid), int(tid)): comm for pid, tid, comm in data["threads"]}
        run.stats = data["stats"]
        run.refused = data["refused"]
        run.energy, run.readings, run.counters = data["energy"], data["readings"], data["counters"]
        run.samples = data["samples"]
        run.keys = {tuple(k): v for k, v in data["keys"]}
        run.width = run.off_counter(len(run.counters))
        return run

    def channel_names(self) -> list[str]:
        return [c["name"] for c in self.energy]

    def comm(self, pid: int) -> str:
        p = self.processes.get(int(pid))
        return p.get("comm", "?") if p else "?"

    def thread_comm(self, pid: int, tid: int) -> str:
        """The thread's last name (pthread_setname_np), else its process's."""
        return self.threads.get((int(pid), int(tid))) or self.comm(pid)
