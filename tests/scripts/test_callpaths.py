"""samplerlib.callpaths, callread, callrows, calldiff: trees of call paths, shares
with intervals, comparisons, flame graphs."""

import pytest

from samplerlib import calldiff, callpaths, callread, callrows, flame, stats

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
    # 6 of 10 at 95%: the Wilson score interval as R gives it,
    # prop.test(6, 10, correct = FALSE)$conf.int (not from the code here)
    assert z == pytest.approx(1.959964, abs=1e-6)
    assert (lo, hi) == pytest.approx((0.3126738, 0.8318197), abs=1e-7)
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


def test_interned_stacks_are_the_split_texts():
    """_Frames.intern reuses the frames a text shares with the one before
    (a binary search on frame boundaries): every node's path must still be
    its text split at ';', whatever the order and the shared prefixes."""
    import random

    rng = random.Random(7)
    names = ["a", "ab", "b", "", "main", "rec", "x:y", "a b"]
    texts = []
    for _ in range(400):
        depth = rng.randrange(1, 12)
        base = texts[-1].split(";") if texts and rng.random() < 0.7 else []
        keep = base[: rng.randrange(0, len(base) + 1)]
        texts.append(";".join(keep + [rng.choice(names) for _ in range(depth)]))
    frames = callread._Frames()
    for text in texts:
        node, path = frames.intern(text), []
        while node:
            path.append(frames.name[node])
            node = frames.parent[node]
        assert ";".join(reversed(path)) == text


def test_deep_tree_walks_without_recursion():
    deep = [(("main",) + ("rec",) * 5000 + ("leaf",), {"samples": 1, "cpu": 1.0, "cpu_sq": 1.0})]
    root = callpaths.tree_of(deep)
    assert sum(1 for _ in callpaths.walk(root, 0.0)) == 5002
    assert len(callrows.rows_of(root, [], 1.96, 0.0)) == 5002
    assert node(callpaths.callers(root, "leaf"), "leaf").incl["samples"] == 1
    assert len(calldiff.compare(root, root, ["cpu"], 1.96, 5.0, 0.0)) == 5002
    assert len(flame.flame_frames(root, "samples", 1000.0, min_px=0.0)) == 5002
