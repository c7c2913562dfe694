"""The 0-1 IP per frame, the planner and all-or-nothing reservation (seed 001).

Hand-built graphs where the optimum is known, infeasible requests, all-or-nothing, admin
options, and a cross-check of the IP's optimum against brute-force enumeration — for both
formulations (routes, the default, and the seed's arcs), with and without the product rows
and the LP-first shortcut.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.coallocation import (
    SEED001,
    CoallocationFailed,
    Managers,
    PlannerConfig,
    RequestError,
    TopologyError,
    load_topology,
    parse_request,
    plan,
    plan_request,
)
from scheduler.coallocation.admin_options import cpu_weights, domain_weights
from scheduler.coallocation.routes import route_table

VARIANTS = {
    "routes": {},
    "routes-no-rlt": {"rlt": False},
    "routes-mip-only": {"lp_first": False},
    "arcs": {"formulation": "arcs"},
    "arcs-mip-only": {"formulation": "arcs", "lp_first": False},
}


def site(name, cpus, domain="D", value=1):
    return {"name": name, "domain": domain, "cpus": cpus, "value": value}


def link(a, b, gbps=1, value=1):
    return {"between": [a, b], "bandwidth": gbps, "value": value}


def req(sites, paths=(), frame=None):
    return {
        "sites": [{"name": n, "cpus": c} for n, c in sites],
        "paths": [{"between": [a, b], "bandwidth": g} for a, b, g in paths],
        "frame": frame or {"start": 0, "end": 3600},
    }


def test_path_must_go_through_the_exchange_point():
    # a (domain P) and b (domain Q) only meet at X1; X2 is a dead end of P
    topo = {
        "sites": [site("a", 4, "P"), site("b", 4, "Q")],
        "exchange_points": [
            {"name": "X1", "domains": ["P", "Q"]},
            {"name": "X2", "domains": ["P"]},
        ],
        "links": [link("a", "X1", 10, 3), link("b", "X1", 10, 3), link("a", "X2", 10, 1)],
    }
    plans = plan_request(topo, req([("r0", 2), ("r1", 2)], [("r0", "r1", 1)]))
    best = plans[0]
    route = best["paths"][0]["route"]
    assert route in (["a", "X1", "b"], ["b", "X1", "a"])
    # price over one hour: CPUs 2·1 + 2·1, bandwidth 1 Gbps on two links of value 3
    assert best["price"] == pytest.approx(4 + 6)


def test_a_site_too_small_is_not_chosen():
    topo = {"sites": [site("big", 8), site("small", 2)], "links": [link("big", "small")]}
    best = plan_request(topo, req([("r0", 1), ("r1", 4)], [("r0", "r1", 1)]))[0]
    assert best["sites"] == {"r0": "small", "r1": "big"}


def test_exhausted_link_sends_the_path_the_other_way():
    doc = {
        "sites": [site("a", 4), site("b", 4)],
        "exchange_points": [{"name": "X", "domains": ["D"]}],
        "links": [link("a", "b", 1, 1), link("a", "X", 1, 2), link("X", "b", 1, 2)],
    }
    t = load_topology(doc)
    r = parse_request(req([("r0", 1), ("r1", 1)], [("r0", "r1", 1)]))
    m = Managers(t)
    first = plan(t, r, m).plans[0]
    assert first.routes[0] in ((0, 1), (1, 0))  # direct: cost 1 < 2 + 2
    direct = next(k for k, ln in enumerate(t.links) if {ln.a, ln.b} == {"a", "b"})
    m.link_profiles[direct].reserve(0, 3600, 1000)  # someone took the direct link
    second = plan(t, r, m).plans[0]
    names = [t.nodes[n] for n in second.routes[0]]
    assert names in (["a", "X", "b"], ["b", "X", "a"])
    assert second.objective == pytest.approx(1 + 1 + 4)  # CPUs + 1 Gbps on two links of 2


def test_infeasible_requests_give_no_plan():
    topo = {"sites": [site("a", 4), site("b", 4)], "links": [link("a", "b", 1)]}
    assert plan_request(topo, req([("r0", 1), ("r1", 1), ("r2", 1)])) == []  # 3 > 2 sites
    assert plan_request(topo, req([("r0", 5), ("r1", 1)])) == []  # no site has 5 CPUs
    assert plan_request(topo, req([("r0", 1), ("r1", 1)], [("r0", "r1", 2)])) == []  # 2 > 1 Gbps


def test_range_frame_takes_the_earliest_free_frame():
    t = load_topology({"sites": [site("a", 4), site("b", 4)], "links": [link("a", "b", 1)]})
    m = Managers(t)
    m.site_profiles[0].reserve(0, 2000, 4)  # a is full until 2000
    # frames of 1000 s starting at 0, 1000, 2000, 3000 (N = 4 over [0, 3000])
    frame = {"earliest_start": 0, "latest_start": 3000, "duration": 1000}
    r = parse_request(req([("r0", 1), ("r1", 1)], [("r0", "r1", 1)], frame))
    res = plan(t, r, m, PlannerConfig(frames=4))
    assert [p.start for p in res.plans] == [2000, 3000]


def test_all_or_nothing_leaves_nothing_behind():
    t = load_topology(SEED001)
    m = Managers(t)
    before_sites = [p.copy() for p in m.site_profiles]
    before_links = [p.copy() for p in m.link_profiles]
    m.link_profiles[5].reserve(100, 200, 4500)  # only 500 Mbps left on link 5
    taken = m.link_profiles[5].copy()
    with pytest.raises(CoallocationFailed, match="link"):
        m.reserve(0, 1000, ((0, 8), (3, 64)), ((0, 1000), (5, 1000)))
    assert m.site_profiles == before_sites
    assert m.link_profiles[:5] == before_links[:5] and m.link_profiles[5] == taken
    assert m.reservations == {}
    r = m.reserve(0, 1000, ((0, 8),), ((0, 1000),))
    m.cancel(r.id)
    assert m.site_profiles == before_sites


def test_low_priority_user_sees_half():
    topo = {"sites": [site("a", 8), site("b", 8)], "links": [link("a", "b", 1)]}
    r = req([("r0", 5), ("r1", 1)])
    assert plan_request(topo, r, {"priority": "normal"})
    assert plan_request(topo, r, {"priority": "low"}) == []  # 8 // 2 = 4 < 5


def test_cheapest_and_quality_options():
    topo = {
        "sites": [
            {"name": "a", "domain": "D", "cpus": 4, "value": 1, "quality": 1},
            {"name": "b", "domain": "D", "cpus": 4, "value": 5, "quality": 4},
        ],
        "links": [link("a", "b")],
    }
    r = req([("r0", 2)])
    assert plan_request(topo, r, {"option": "cheapest"})[0]["sites"] == {"r0": "a"}
    # quality: a costs 2/1 = 2, b costs 2/4 = 0.5
    best = plan_request(topo, r, {"option": "quality"})[0]
    assert best["sites"] == {"r0": "b"} and best["quality"] == pytest.approx(0.5)


def test_preference_weights_are_the_seeds():
    t = load_topology(SEED001)
    # (B1) N* = 1, S* = 10, U* = 100; (B2) 64 -> 1, 32 -> 10, 16 -> 100, 8 -> 1000
    assert domain_weights(t, ("N", "S", "U")) == [1] * 4 + [10] * 3 + [100] * 3
    assert cpu_weights(t) == [1000, 100, 10, 1, 1000, 100, 10, 1000, 100, 10]
    best = plan_request(SEED001, req([("r0", 4)]), {"admin": "B-cpus"})[0]
    assert best["sites"] == {"r0": "N3"}


@pytest.mark.parametrize(
    "options, request_doc, field",
    [
        ({}, req([("r0", 1)], [("r0", "zz", 1)]), "request.paths[0].between[1]"),
        ({}, req([("r0", 1), ("r1", 1)], [("r0", "r1", -1)]), "request.paths[0].bandwidth"),
        ({}, req([("r0", 1)], frame={"earliest_start": 50, "latest_start": 10, "duration": 5}),
         "request.frame.earliest_start"),
        ({"frames": 0}, req([("r0", 1)]), "options.frames"),
        ({"option": "fastest"}, req([("r0", 1)]), "options.option"),
        ({"colour": 1}, req([("r0", 1)]), "options.colour"),
    ],
)  # fmt: skip
def test_bad_input_names_the_field(options, request_doc, field):
    with pytest.raises(RequestError) as info:
        plan_request(SEED001, request_doc, options)
    assert field in info.value.errors, info.value.errors


def test_bad_topology_names_the_field():
    with pytest.raises(TopologyError) as info:
        plan_request({"sites": [site("a", 1), site("b", 1)]}, req([("r0", 1)]))
    assert "topology.links" in info.value.errors


# ---------------------------------------------------------------- brute-force cross-check


def _simple_paths(adj, s, t, limit):
    out = []

    def rec(node, seen, links):
        if node == t:
            out.append(tuple(links))
            return
        if limit is not None and len(links) == limit:
            return
        for nxt, k in adj[node]:
            if nxt not in seen:
                rec(nxt, seen | {nxt}, links + [k])

    rec(s, {s}, [])
    return out


def brute_force(t, r, p_max):
    """Minimum of (3) over injective mappings and one simple route per path (a flow with
    cycles never costs less, values being positive)."""
    n = len(t.sites)
    node = t.node_index
    adj = {i: [] for i in range(len(t.nodes))}
    for k, ln in enumerate(t.links):
        adj[node[ln.a]].append((node[ln.b], k))
        adj[node[ln.b]].append((node[ln.a], k))
    best = math.inf
    for mapping in itertools.permutations(range(n), len(r.sites)):
        if any(t.sites[i].cpus < s.cpus for i, s in zip(mapping, r.sites, strict=True)):
            continue
        base = sum(t.sites[i].value * s.cpus for i, s in zip(mapping, r.sites, strict=True))
        options = [_simple_paths(adj, mapping[p.a], mapping[p.b], p_max) for p in r.paths]
        for routes in itertools.product(*options):
            use = {}
            for p, route in zip(r.paths, routes, strict=True):
                for k in route:
                    use[k] = use.get(k, 0) + p.mbps
            if any(m > t.links[k].mbps for k, m in use.items()):
                continue
            cost = base + sum(
                t.links[k].value * p.mbps / 1000
                for p, route in zip(r.paths, routes, strict=True)
                for k in route
            )
            best = min(best, cost)
    return best


@st.composite
def small_case(draw):
    n_sites = draw(st.integers(2, 4))
    n_x = draw(st.integers(0, 1))
    names = [f"s{i}" for i in range(n_sites)] + [f"x{i}" for i in range(n_x)]
    sites = [
        {"name": f"s{i}", "domain": "D", "cpus": draw(st.integers(1, 6)),
         "value": draw(st.integers(1, 4))}
        for i in range(n_sites)
    ]  # fmt: skip
    pairs = list(itertools.combinations(names, 2))
    chosen = draw(st.lists(st.sampled_from(pairs), min_size=1, unique=True))
    # a spanning chain keeps it connected
    chain = set(zip(names, names[1:], strict=False))
    links = [
        {"between": list(p), "bandwidth": draw(st.sampled_from([1, 2, 3])),
         "value": draw(st.integers(1, 5))}
        for p in sorted(set(chosen) | chain)
    ]  # fmt: skip
    topo = {
        "sites": sites,
        "exchange_points": [{"name": f"x{i}", "domains": ["D"]} for i in range(n_x)],
        "links": links,
    }
    k = draw(st.integers(2, min(3, n_sites)))
    rsites = [(f"r{j}", draw(st.integers(1, 4))) for j in range(k)]
    rpairs = list(itertools.combinations([n for n, _ in rsites], 2))
    ends = draw(st.lists(st.sampled_from(rpairs), min_size=1, unique=True))
    rpaths = [(a, b, draw(st.sampled_from([1, 2]))) for a, b in ends]
    p_max = draw(st.sampled_from([None, 2, 3]))
    return topo, req(rsites, rpaths), p_max, draw(st.booleans())


def _check_against(t, r, p_max, expected, config):
    res = plan(t, r, Managers(t), config)
    if expected == math.inf:
        assert res.plans == []
        return
    assert len(res.plans) == 1
    p = res.plans[0]
    assert p.objective == pytest.approx(expected)
    assert p.optimal
    # the plan is what it claims: every route joins its mapped sites within P_max links
    for rp, route in zip(r.paths, p.routes, strict=True):
        assert (route[0], route[-1]) == (p.mapping[rp.a], p.mapping[rp.b])
        assert p_max is None or len(route) - 1 <= p_max
        assert len(set(route)) == len(route)  # simple
    Managers(t).reserve(p.start, p.end, p.site_blocks, p.link_blocks)  # it fits


@settings(max_examples=40, deadline=None, derandomize=True)
@given(small_case())
def test_ip_optimum_equals_brute_force(case):
    topo, request_doc, p_max, tighten = case
    t = load_topology(topo)
    r = parse_request(request_doc)
    expected = brute_force(t, r, p_max)
    for extra in VARIANTS.values():
        config = PlannerConfig(frames=1, p_max=p_max, two_way=True, tighten=tighten, **extra)
        _check_against(t, r, p_max, expected, config)


@st.composite
def seed_case(draw):
    """The seed's testbed with random capacities left (so links bind) and a 2–3 site star or
    mesh request; small enough for the brute force (10·9·8 mappings)."""
    doc = {**SEED001}
    doc["sites"] = [{**s, "cpus": draw(st.sampled_from([1, 2, 4, 8]))} for s in SEED001["sites"]]
    doc["links"] = [
        {**ln, "bandwidth": draw(st.sampled_from([0.5, 1, 2, 5]))} for ln in SEED001["links"]
    ]
    k = draw(st.integers(2, 3))
    rsites = [(f"r{j}", draw(st.sampled_from([1, 2, 4, 8]))) for j in range(k)]
    if draw(st.booleans()):
        rpaths = [("r0", f"r{j}", 1) for j in range(1, k)]
    else:
        rpaths = [(f"r{a}", f"r{b}", 1) for a, b in itertools.combinations(range(k), 2)]
    return doc, req(rsites, rpaths)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(seed_case())
def test_seed_testbed_optimum_equals_brute_force(case):
    topo, request_doc = case
    t = load_topology(topo)
    r = parse_request(request_doc)
    expected = brute_force(t, r, 2)
    for extra in VARIANTS.values():
        _check_against(t, r, 2, expected, PlannerConfig(frames=1, **extra))


def test_route_table_of_the_seed_testbed():
    # N0 -> N1: the direct link, through N2 or N3 (in-domain mesh), through X1 or X2 = 5;
    # N0 -> S0: only through X1 or X2 = 2; N0 -> U0: only X1 joins N and U = 1
    t = load_topology(SEED001)
    node = t.node_index
    links = tuple((node[ln.a], node[ln.b]) for ln in t.links)
    table = route_table(len(t.nodes), len(t.sites), links, 2)
    s = t.site_index
    assert len(table.by_pair[s["N0"], s["N1"]]) == 5
    assert len(table.by_pair[s["N0"], s["S0"]]) == 2
    assert len(table.by_pair[s["N0"], s["U0"]]) == 1
    assert all(len(r.links) <= 2 for rs in table.by_pair.values() for r in rs)
    # U0 -> U1 and U1 -> U0 are listed separately (the direction says which end is o's)
    assert [r.nodes[::-1] for r in table.by_pair[s["U1"], s["U0"]]] == [
        r.nodes for r in table.by_pair[s["U0"], s["U1"]]
    ]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_shared_thin_link_is_not_overbooked(variant):
    # r0 (8 CPUs) can only be a; r1, r2 (1 CPU) are b and c.  a-b (1 Gbps, value 1) is the
    # cheap way to both b (direct, 1) and c (a-b-c, 1 + 1); the other way is through X
    # (5 + 5).  Both paths cannot use a-b: one pays 1, the other 10 -> links 11, CPUs
    # 8 + 1 + 1 = 10, objective 21 (either assignment of r1, r2).
    topo = {
        "sites": [site("a", 8), site("b", 1), site("c", 1)],
        "exchange_points": [{"name": "X", "domains": ["D"]}],
        "links": [
            link("a", "b", 1, 1), link("b", "c", 10, 1), link("a", "X", 10, 5),
            link("X", "b", 10, 5), link("X", "c", 10, 5),
        ],
    }  # fmt: skip
    t = load_topology(topo)
    r = parse_request(req([("r0", 8), ("r1", 1), ("r2", 1)], [("r0", "r1", 1), ("r0", "r2", 1)]))
    p = plan(t, r, Managers(t), PlannerConfig(frames=1, **VARIANTS[variant])).plans[0]
    assert p.objective == pytest.approx(21)
    names = sorted(tuple(t.nodes[n] for n in route) for route in p.routes)
    assert ("a", "X", "b") in names or ("a", "X", "c") in names
    assert dict(p.link_blocks)[next(k for k, ln in enumerate(t.links) if ln.b == "b")] == 1000


def test_without_p_max_the_arc_formulation_serves():
    # a chain a-b-c-d; r0 and r1 need 4 CPUs, so they are a and d, three links apart: no plan
    # with P_max = 2; without P_max (arcs) or with P_max = 3 (routes) the plan costs
    # CPUs 4 + 4 + 1 Gbps on three links of value 1 = 11
    topo = {
        "sites": [site("a", 4), site("b", 1), site("c", 1), site("d", 4)],
        "links": [link("a", "b"), link("b", "c"), link("c", "d")],
    }
    t = load_topology(topo)
    r = parse_request(req([("r0", 4), ("r1", 4)], [("r0", "r1", 1)]))
    assert plan(t, r, Managers(t), PlannerConfig(frames=1, p_max=2)).plans == []
    for p_max in (None, 3):
        best = plan(t, r, Managers(t), PlannerConfig(frames=1, p_max=p_max)).plans[0]
        assert best.objective == 11
        assert len(best.routes[0]) == 4


@settings(max_examples=15, deadline=None, derandomize=True)
@given(small_case())
def test_scipy_and_highspy_agree(case):
    topo, request_doc, p_max, _ = case
    t = load_topology(topo)
    r = parse_request(request_doc)
    a = plan(t, r, Managers(t), PlannerConfig(frames=1, p_max=p_max, solver="highs")).plans
    b = plan(t, r, Managers(t), PlannerConfig(frames=1, p_max=p_max, solver="scipy")).plans
    assert [p.objective for p in a] == pytest.approx([p.objective for p in b])


# ------------------------------------------- arc formulation: (8) for one-direction links


def _one_direction_case(alternatives: bool):
    """Two big sites s1, s2 (8 CPUs) must take r0 and r2, r1 (4 CPUs) is t; both paths end
    at r1 and the cheap way in is X -> t (1 Gbps, value 1).  With P_max = 2 the pruning
    creates only the arc X -> t of that link (t -> X cannot lie on a 2-link path), so the
    old "Σ arcs / 2 <= wb" test dropped its capacity row and both paths took it: 2,000 Mbps
    on 1,000.  The optimum sends one path the expensive direct way (value 10)."""
    links = [link("s1", "X", 10, 1), link("s2", "X", 10, 1), link("X", "t", 1, 1)]
    if alternatives:
        links += [link("s1", "t", 10, 10), link("s2", "t", 10, 10)]
    topo = {
        "sites": [site("s1", 8), site("s2", 8), site("t", 4)],
        "exchange_points": [{"name": "X", "domains": ["D"]}],
        "links": links,
    }
    request_doc = req([("r0", 8), ("r1", 4), ("r2", 8)], [("r0", "r1", 1), ("r2", "r1", 1)])
    return load_topology(topo), parse_request(request_doc)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_link_with_one_arc_keeps_its_capacity_row(variant):
    t, r = _one_direction_case(alternatives=True)
    expected = brute_force(t, r, 2)
    # CPUs 8 + 4 + 8; one path s-X-t (1 + 1), the other direct (10)
    assert expected == pytest.approx(32)
    p = plan(t, r, Managers(t), PlannerConfig(frames=1, **VARIANTS[variant])).plans[0]
    assert p.objective == pytest.approx(expected)
    for k, mbps in p.link_blocks:
        assert mbps <= t.links[k].mbps
    Managers(t).reserve(p.start, p.end, p.site_blocks, p.link_blocks)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_frame_the_thin_link_cannot_serve_has_no_plan(variant):
    t, r = _one_direction_case(alternatives=False)
    assert brute_force(t, r, 2) == math.inf
    assert plan(t, r, Managers(t), PlannerConfig(frames=1, **VARIANTS[variant])).plans == []


@st.composite
def arc_case(draw):
    """Small graphs where links bind: 1 Gbps links, 1 Gbps paths sharing end points, CPUs
    that force the mapping, exchange points that make P_max prune one direction of a link."""
    n_sites = draw(st.integers(2, 4))
    n_x = draw(st.integers(0, 2))
    names = [f"s{i}" for i in range(n_sites)] + [f"x{i}" for i in range(n_x)]
    sites = [
        {"name": f"s{i}", "domain": "D", "cpus": draw(st.sampled_from([1, 4, 8])),
         "value": draw(st.integers(1, 3))}
        for i in range(n_sites)
    ]  # fmt: skip
    pairs = list(itertools.combinations(names, 2))
    chosen = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=7, unique=True))
    chain = set(zip(names, names[1:], strict=False))
    links = [
        {"between": list(p), "bandwidth": draw(st.sampled_from([1, 1, 2])),
         "value": draw(st.integers(1, 10))}
        for p in sorted(set(chosen) | chain)
    ]  # fmt: skip
    topo = {
        "sites": sites,
        "exchange_points": [{"name": f"x{i}", "domains": ["D"]} for i in range(n_x)],
        "links": links,
    }
    k = draw(st.integers(2, min(3, n_sites)))
    rsites = [(f"r{j}", draw(st.sampled_from([1, 4, 8]))) for j in range(k)]
    rpairs = list(itertools.combinations([n for n, _ in rsites], 2))
    ends = draw(st.lists(st.sampled_from(rpairs), min_size=1, max_size=3, unique=True))
    ends = [(b, a) if draw(st.booleans()) else (a, b) for a, b in ends]  # either direction
    rpaths = [(a, b, draw(st.sampled_from([1, 1, 2]))) for a, b in ends]
    p_max = draw(st.sampled_from([2, 2, 3, None]))
    return topo, req(rsites, rpaths), p_max, draw(st.booleans()), draw(st.booleans())


@st.composite
def hub_case(draw):
    """Sources that only big sites can host send to a target only a small site can host,
    through exchange points: P_max then creates only the inbound arc of the hub -> target
    links, the shape that lost (8) before (random graphs rarely hit it)."""
    n_big = draw(st.integers(2, 3))
    n_small = draw(st.integers(1, 2))
    n_x = draw(st.integers(1, 2))
    big = [f"b{i}" for i in range(n_big)]
    small = [f"t{i}" for i in range(n_small)]
    hubs = [f"x{i}" for i in range(n_x)]
    sites = [site(n, 8, value=draw(st.integers(1, 3))) for n in big] + [
        site(n, 4, value=draw(st.integers(1, 3))) for n in small
    ]
    pairs = [(a, h) for a in big + small for h in hubs] + [(a, b) for a in big for b in small]
    pairs += list(itertools.combinations(hubs, 2))
    star = {(n, "x0") for n in big + small} | {("x0", h) for h in hubs[1:]}  # connected
    chosen = draw(st.lists(st.sampled_from(pairs), max_size=6, unique=True))
    links = [
        {"between": list(p), "bandwidth": draw(st.sampled_from([1, 1, 2, 3])),
         "value": draw(st.integers(1, 10))}
        for p in sorted(set(chosen) | star)
    ]  # fmt: skip
    topo = {
        "sites": sites,
        "exchange_points": [{"name": h, "domains": ["D"]} for h in hubs],
        "links": links,
    }
    n_src = draw(st.integers(1, n_big))
    rsites = [(f"r{j}", 8) for j in range(n_src)] + [("rt", 4)]
    rpaths = [
        (f"r{j}", "rt", 1) if draw(st.booleans()) else ("rt", f"r{j}", 1) for j in range(n_src)
    ]
    p_max = draw(st.sampled_from([2, 2, 3, None]))
    return topo, req(rsites, rpaths), p_max, draw(st.booleans()), draw(st.booleans())


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.one_of(arc_case(), hub_case()))
def test_arc_formulation_equals_brute_force(case):
    """The seed's arc formulation against enumeration, on cases built to make links bind
    (the route formulation has its own property test above)."""
    topo, request_doc, p_max, tighten, lp_first = case
    t = load_topology(topo)
    r = parse_request(request_doc)
    expected = brute_force(t, r, p_max)
    config = PlannerConfig(
        frames=1, p_max=p_max, two_way=True, tighten=tighten, formulation="arcs",
        lp_first=lp_first,
    )  # fmt: skip
    _check_against(t, r, p_max, expected, config)


def test_each_frame_reports_its_own_solve_time():
    """the plans of a range request showed the last solve's time for every frame.
    Frames with the same availability reuse the first one's solution (``cached``: no solve,
    0 s); a frame with its own availability is solved and timed on its own."""
    t = load_topology({"sites": [site("a", 4), site("b", 4)], "links": [link("a", "b", 1)]})
    m = Managers(t)
    m.site_profiles[0].reserve(1000, 2000, 2)  # frame 1 sees 2 CPUs at a: r0 cannot go there
    frame = {"earliest_start": 0, "latest_start": 3000, "duration": 1000}
    r = parse_request(req([("r0", 3), ("r1", 1)], [("r0", "r1", 1)], frame))
    res = plan(t, r, m, PlannerConfig(frames=4, option="cheapest"))
    by_frame = {p.frame: p for p in res.plans}
    assert sorted(by_frame) == [0, 1, 2, 3]
    assert [by_frame[f].cached for f in range(4)] == [False, False, True, True]
    assert res.solves == 2
    assert sorted(by_frame[f].solve_seconds for f in (0, 1)) == sorted(res.solve_seconds)
    assert by_frame[0].solve_seconds > 0 and by_frame[1].solve_seconds > 0
    assert by_frame[2].solve_seconds == by_frame[3].solve_seconds == 0.0
    uncached = plan(t, r, m, PlannerConfig(frames=4, option="cheapest", cache=False))
    assert uncached.solves == 4 and not any(p.cached for p in uncached.plans)
    assert sorted(p.solve_seconds for p in uncached.plans) == sorted(uncached.solve_seconds)


def test_a_frame_whose_ip_is_identical_is_not_solved_again():
    """Frame 1 sees 2 CPUs at a instead of 4, but the request needs 1 per site: no column or
    row depends on the difference, the IP is the same as frame 0's and its solution serves
    (``cached``); without the cache every frame is solved."""
    t = load_topology({"sites": [site("a", 4), site("b", 4)], "links": [link("a", "b", 1)]})
    m = Managers(t)
    m.site_profiles[0].reserve(1000, 2000, 2)
    frame = {"earliest_start": 0, "latest_start": 3000, "duration": 1000}
    r = parse_request(req([("r0", 1), ("r1", 1)], [("r0", "r1", 1)], frame))
    res = plan(t, r, m, PlannerConfig(frames=4, option="cheapest"))
    by_frame = {p.frame: p for p in res.plans}
    assert [by_frame[f].cached for f in range(4)] == [False, True, True, True]
    assert res.solves == 1
    assert len({(p.mapping, p.routes, p.objective) for p in res.plans}) == 1
    uncached = plan(t, r, m, PlannerConfig(frames=4, option="cheapest", cache=False))
    assert uncached.solves == 4
    assert [p.objective for p in uncached.plans] == [p.objective for p in res.plans]


@st.composite
def loose_star_case(draw):
    """Links wide enough for every path at once (no link is tight: leaf pruning applies),
    more sites than requested ones so that it removes columns; star or chain requests."""
    n_sites = draw(st.integers(4, 6))
    names = [f"s{i}" for i in range(n_sites)] + ["x0"]
    sites = [
        {"name": f"s{i}", "domain": "D", "cpus": draw(st.integers(1, 6)),
         "value": draw(st.integers(1, 4))}
        for i in range(n_sites)
    ]  # fmt: skip
    pairs = list(itertools.combinations(names, 2))
    chosen = draw(st.lists(st.sampled_from(pairs), min_size=2, unique=True))
    chain = set(zip(names, names[1:], strict=False))
    links = [
        {"between": list(p), "bandwidth": 10, "value": draw(st.integers(1, 5))}
        for p in sorted(set(chosen) | chain)
    ]  # fmt: skip
    topo = {"sites": sites, "exchange_points": [{"name": "x0", "domains": ["D"]}], "links": links}
    k = draw(st.integers(2, 4))
    rsites = [(f"r{j}", draw(st.integers(1, 4))) for j in range(k)]
    if draw(st.booleans()):
        rpaths = [("r0", f"r{j}", 1) for j in range(1, k)]  # star: every other site a leaf
    else:
        rpaths = [(f"r{j}", f"r{j + 1}", 1) for j in range(k - 1)]  # chain: two leaves
    return topo, req(rsites, rpaths)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(loose_star_case())
def test_leaf_pruning_keeps_the_optimum(case):
    topo, request_doc = case
    t = load_topology(topo)
    r = parse_request(request_doc)
    expected = brute_force(t, r, 2)
    for prune in (True, False):
        _check_against(t, r, 2, expected, PlannerConfig(frames=1, prune_leaves=prune))


def test_leaf_pruning_over_tight_links_keeps_the_optimum(monkeypatch):
    """Links too thin for every path at once (tight): a leaf keeps its ``len(rc)`` cheapest
    sites over loose routes and the tight routes cheaper than the last of them.  Random
    stars and chains on 5-7 sites against brute force, pruned and not; the cases must both
    drop tight routes and keep some (else the rule was not exercised)."""
    import random

    from scheduler.coallocation import ip_routes

    seen = {"dropped": 0, "kept tight": 0}
    nearest = ip_routes._nearest

    def spy(sel, *args):
        out = nearest(sel, *args)
        loose = args[-1]
        if loose is not None:
            kept = np.isin(sel, out)
            seen["dropped"] += int((~loose & ~kept).sum())
            seen["kept tight"] += int((~loose & kept).sum())
        return out

    monkeypatch.setattr(ip_routes, "_nearest", spy)
    for seed in range(40):
        rng = random.Random(seed)
        n_sites = rng.randint(5, 7)
        names = [f"s{i}" for i in range(n_sites)] + ["x0"]
        sites = [
            {"name": f"s{i}", "domain": "D", "cpus": rng.randint(1, 6), "value": rng.randint(1, 4)}
            for i in range(n_sites)
        ]
        pairs = set(rng.sample(list(itertools.combinations(names, 2)), rng.randint(4, 12)))
        pairs |= set(zip(names, names[1:], strict=False))  # connected
        links = [
            {
                "between": list(ab),
                "bandwidth": rng.choice((1, 2, 3, 10)),
                "value": rng.randint(1, 5),
            }
            for ab in sorted(pairs)
        ]
        topo = {
            "sites": sites,
            "exchange_points": [{"name": "x0", "domains": ["D"]}],
            "links": links,
        }
        k = rng.randint(2, 3)
        rsites = [(f"r{j}", rng.randint(1, 3)) for j in range(k)]
        if rng.random() < 0.6:
            rpaths = [("r0", f"r{j}", rng.randint(1, 3)) for j in range(1, k)]  # star
        else:
            rpaths = [(f"r{j}", f"r{j + 1}", rng.randint(1, 3)) for j in range(k - 1)]  # chain
        t = load_topology(topo)
        r = parse_request(req(rsites, rpaths))
        expected = brute_force(t, r, 2)
        for prune in (True, False):
            _check_against(t, r, 2, expected, PlannerConfig(frames=1, prune_leaves=prune))
    assert seen["dropped"] > 20 and seen["kept tight"] > 20, seen


@pytest.mark.parametrize("cpus", [(16, 16, 16, 16), (16, 16, 16, 32), (16, 16, 32, 32)])
def test_dive_and_branch_equal_highs_branch_and_cut(cpus, monkeypatch):
    """Mesh requests (every pair joined) on the seed testbed leave the LP fractional: the
    dive and the own branch and bound (exact on integral costs) settle them and must reach
    HiGHS branch and cut's optimum; so must the fallback when the node budget is 0."""
    from scheduler.coallocation import solver

    t = load_topology(SEED001)
    names = [f"r{j}" for j in range(len(cpus))]
    r = parse_request(
        req(
            list(zip(names, cpus, strict=True)),
            [(a, b, 1) for a, b in itertools.combinations(names, 2)],
        )
    )
    reference = plan(t, r, Managers(t), PlannerConfig(frames=1, lp_first=False)).plans[0]
    settled = []
    branch = solver._branch

    def spy(*args):
        point = branch(*args)
        settled.append(point is not None)
        return point

    monkeypatch.setattr(solver, "_branch", spy)
    res = plan(t, r, Managers(t), PlannerConfig(frames=1))
    assert res.mip_solves == 1 and settled == [True]  # the LP was fractional; _branch settled it
    assert res.plans[0].objective == reference.objective and res.plans[0].optimal
    _check_plan_fits(t, r, res.plans[0])
    monkeypatch.setattr(solver, "BRANCH_NODES", 0)
    settled.clear()
    fallback = plan(t, r, Managers(t), PlannerConfig(frames=1))
    assert settled == [False] and fallback.plans[0].objective == reference.objective


def _check_plan_fits(t, r, p):
    for rp, route in zip(r.paths, p.routes, strict=True):
        assert (route[0], route[-1]) == (p.mapping[rp.a], p.mapping[rp.b])
        assert len(route) - 1 <= 2 and len(set(route)) == len(route)
    Managers(t).reserve(p.start, p.end, p.site_blocks, p.link_blocks)


def test_the_time_limit_is_one_budget_for_the_whole_request(monkeypatch):
    """``time_limit`` bounds a request's solving, all frames together (before, every frame's
    solve had it, twice: a 10-frame request could take 20 times the limit).  On a clock that
    each solve moves by 0.4 s, a 1-s budget gives the first three solves 1.0, 0.6 and 0.2 s and
    leaves the other frames unsolved; the plans found are the answer."""
    from scheduler.coallocation import planner as planner_mod

    clock = [100.0]
    given_limits = []
    real_solve = planner_mod.solve_ip

    def solve(ip, ends, **kw):  # the real solver, on a clock of our own
        given_limits.append(round(kw["time_limit"], 6))
        out = real_solve(ip, ends, **kw)
        clock[0] += 0.4
        return out

    monkeypatch.setattr(planner_mod.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(planner_mod, "solve_ip", solve)
    t = load_topology({"sites": [site("a", 4), site("b", 4)], "links": [link("a", "b", 1)]})
    frame = {"earliest_start": 0, "latest_start": 5000, "duration": 1000}
    r = parse_request(req([("r0", 1), ("r1", 1)], [("r0", "r1", 1)], frame))
    res = plan(t, r, Managers(t), PlannerConfig(frames=6, cache=False, time_limit=1.0))
    assert given_limits == [1.0, 0.6, 0.2]
    assert res.solves == 3 and res.unsolved == 3 and len(res.plans) == 3


def test_a_spent_budget_plans_nothing_more_with_the_real_clock():
    t = load_topology({"sites": [site("a", 4), site("b", 4)], "links": [link("a", "b", 1)]})
    frame = {"earliest_start": 0, "latest_start": 5000, "duration": 1000}
    r = parse_request(req([("r0", 1), ("r1", 1)], [("r0", "r1", 1)], frame))
    res = plan(t, r, Managers(t), PlannerConfig(frames=6, cache=False, time_limit=1e-9))
    assert res.solves == 0 and res.unsolved == 6 and res.plans == []
    res = plan(t, r, Managers(t), PlannerConfig(frames=6, cache=False))
    assert res.solves == 6 and res.unsolved == 0 and len(res.plans) == 6
