"""samplerlib.callpaths: trees of call paths, shares with intervals, flame graphs."""

import pytest

from samplerlib import callpaths, stats

# 10 samples: main;a;leaf x4, main;a x2, main;b;leaf x3, main;rec;rec;rec x1
STACKS = [
    (("main", "a", "leaf"), {"samples": 4, "cpu": 4.0, "cpu_sq": 4.0}),
    (("main", "a"), {"samples": 2, "cpu": 2.0, "cpu_sq": 2.0}),
    (("main", "b", "leaf"), {"samples": 3, "cpu": 6.0, "cpu_sq": 12.0}),
    (("main", "rec", "rec", "rec"), {"samples": 1, "cpu": 0.0, "cpu_sq": 0.0}),
]


def node(root, *path):
    for name in path:
        root = root.children[name]
    return root


def test_inclusive_and_self_sums():
    root = callpaths.tree_of(STACKS)
    assert root.incl["samples"] == 10
    assert node(root, "main").incl["samples"] == 10
    assert node(root, "main", "a").incl["samples"] == 6
    assert node(root, "main", "a").self_["samples"] == 2
    assert node(root, "main", "a", "leaf").incl["cpu"] == 4.0
    assert node(root, "main", "b", "leaf").incl["cpu"] == 6.0
    assert node(root, "main", "rec", "rec", "rec").self_["samples"] == 1


def test_shares_with_intervals():
    root = callpaths.tree_of(STACKS)
    z = stats.z_of(0.95)
    s = callpaths.shares(node(root, "main", "a"), ("samples", "cpu"), z)
    incl, lo, hi, self_ = s["samples"]
    assert incl == pytest.approx(0.6)
    assert (lo, hi) == pytest.approx(stats.wilson(6, 10, z))
    assert self_ == pytest.approx(0.2)
    cpu = s["cpu"]
    assert cpu[0] == pytest.approx(6.0 / 12.0)
    assert cpu[1] < cpu[0] < cpu[2]
    assert cpu[3] == pytest.approx(2.0 / 12.0)


def test_callees_merge_every_call_and_keep_recursion_whole():
    tree = callpaths.callees(STACKS, "leaf")
    assert set(tree.children) == {"leaf"}
    assert node(tree, "leaf").incl["samples"] == 7
    rec = callpaths.callees(STACKS, "rec")
    assert node(rec, "rec").incl["samples"] == 1
    assert node(rec, "rec", "rec", "rec").self_["samples"] == 1


def test_callers_of_leaf_split_by_caller():
    tree = callpaths.callers(STACKS, "leaf")
    assert node(tree, "leaf").incl["samples"] == 7
    assert node(tree, "leaf", "a").incl["samples"] == 4
    assert node(tree, "leaf", "b", "main").incl["samples"] == 3


def test_walk_heaviest_first_and_min_share():
    root = callpaths.tree_of(STACKS)
    names = [(d, n.name) for d, n in callpaths.walk(root, 0.0)]
    assert names[:3] == [(0, "main"), (1, "a"), (2, "leaf")]
    assert (1, "rec") in names
    pruned = [n.name for _, n in callpaths.walk(root, 0.15)]
    assert "rec" not in pruned and "b" in pruned
