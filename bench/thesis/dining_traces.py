#!/usr/bin/env python3
"""Counts the Mazurkiewicz traces of dining.c without weft: a cross-check of Table 8.1's Dining rows.

The model is the C program's: philosopher p (0..N-1) locks fork p, then fork (p-1) mod N, unlocks
both, twice. Two operations are dependent when they touch the same fork. A depth-first search
with sleep sets (Godefroid) visits exactly one maximal execution per trace (plus executions it
abandons because every enabled thread sleeps); memoising it on (state, sleep set) makes it count
them without visiting each. Deadlocked executions are maximal executions too.

  bench/thesis/dining_traces.py 5     ->  N=5: 5851 traces (121 deadlocked)

N = 4, 5, 6 take seconds; N = 7 half a minute and 1.5 GB of memory.
"""

import sys
from functools import lru_cache


def count_traces(n):
    """(traces, deadlocked traces) of n philosophers."""
    ops = []  # per philosopher: (is_lock, fork), 8 operations
    for p in range(n):
        first, second = p, (p + n - 1) % n
        ops.append([(True, first), (True, second), (False, second), (False, first)] * 2)

    @lru_cache(maxsize=None)
    def search(pcs, holder, sleep):
        enabled = [p for p in range(n) if pcs[p] < 8 and
                   (not ops[p][pcs[p]][0] or holder[ops[p][pcs[p]][1]] < 0)]
        if not enabled:  # a maximal execution: finished, or deadlocked
            return 1, int(any(pc < 8 for pc in pcs))
        traces = deadlocks = 0
        explored = []
        for p in enabled:
            if p in sleep:
                continue
            is_lock, fork = ops[p][pcs[p]]
            next_holder = list(holder)
            next_holder[fork] = p if is_lock else -1
            next_pcs = list(pcs)
            next_pcs[p] += 1
            # Threads stay asleep (or fall asleep) while what runs is independent of their
            # next operation, i.e. touches another fork.
            next_sleep = frozenset(q for q in sleep | set(explored) if ops[q][pcs[q]][1] != fork)
            t, d = search(tuple(next_pcs), tuple(next_holder), next_sleep)
            traces += t
            deadlocks += d
            explored.append(p)
        return traces, deadlocks

    sys.setrecursionlimit(10000)
    return search(tuple([0] * n), tuple([-1] * n), frozenset())


if __name__ == "__main__":
    for arg in sys.argv[1:] or ["4"]:
        traces, deadlocks = count_traces(int(arg))
        print(f"N={arg}: {traces} traces ({deadlocks} deadlocked)")
