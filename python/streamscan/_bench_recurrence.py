"""The linear-recurrence rows of python -m streamscan.bench (issue 55), and their targets.

h[t] = a[t] h[t-1] + b[t] on (B, C, T) = (8, 1536, T) tensors, time last
([B, C, T], the layout accelerated_scan takes), float32 and bfloat16, gates a
in [0, 1) as in trained models, b and dh in [-1, 1). Per (dtype, T), in one
process, on the same inputs:

  forward             streamscan.linear_recurrence(a, b); streamscan.associative_scan
                      with the pair operator written as source, by default (one warp a
                      row where rows are many) and with STREAMSCAN_ASSOCIATIVE_ROWS=lookback
                      (the look-back kernel); accelerated_scan.warp.scan
                      and accelerated_scan.scalar.scan (its Triton kernel), each a call
                      on inputs that do not require grad (forward only); torch's
                      compiled associative_scan (up to --lr-torch-max-t)
  forward + backward  h = f(a, b) on inputs that require grad, then
                      torch.autograd.grad(h, (a, b), dh): streamscan and both
                      accelerated_scan kernels through autograd; and streamscan's
                      forward and backward calls without autograd (its kernels' cost)

Bytes each pass must move (tools/linear_recurrence_bench.cu counts the same),
N = B C T values: the forward reads a and b and writes h (3 N values); forward +
backward adds reading dh, a and h and writing grad_a and grad_b (5 N more: 8 N).
A copy of X bytes reads X and writes X, so the forward's copy rate is that of a
torch copy_ of 1.5 N values, forward + backward's of 4 N values, each measured
in the same process (uint8 buffers of as many bytes, right before the case).

Every output is checked against a float64 oracle (streamscan's float64
recurrence, itself checked against a sequential loop on three sequences) with
float32-state bounds, as the C++ bench does: |h - h64| <= eps m where m is the
recurrence of |a| and |b|, eps = 2^-8 for 16-bit outputs (their own rounding)
plus 6e-8 (64 + 8 log2(T + 1)) for the float32 state; grad_b against the
reverse recurrence g of dh with a shifted by one (bound eps gm), grad_a against
g[t] h[t-1] (bound eps gm (2 |h[t-1]| + m[t-1])). A row's check says ok or
outside, with the worst error as a fraction of its bound.

A peer that does not import, raises or crashes becomes a row with a note and
no time; the bench goes on. Cases known to crash (accelerated_scan.warp in
bfloat16 at T = 65536: an illegal memory access, which leaves the CUDA context
unusable) run after every other measurement (LR_ISOLATE), so that a crash costs
only them; after a lost context, what is left becomes notes.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import math
import os
import zlib

import streamscan as ss
from . import _recurrence

LR_LENGTHS = (128, 2048, 4096, 16384, 65536)
LR_DTYPES = ("float32", "bfloat16")
LR_LEAD = (8, 1536)
LR_PEERS = ("warp", "triton", "torch")
LR_TORCH_MAX_T = 128  # torch's compiled associative_scan: a compile per shape, slow past short T
PAIR = "return {x.a * y.a, y.a * x.b + y.b};"
NON_FINITE = 1e9  # worst_of_bound of an output with NaN or inf

CASE = "linear_recurrence"
FORWARD, BOTH = "forward", "forward+backward"
OURS_FWD = "streamscan linear_recurrence"
OURS_ASSOC = "streamscan associative_scan (pair operator)"
OURS_ASSOC_LOOKBACK = "streamscan associative_scan (pair operator, look-back kernel)"
ASSOC_ROWS_ENV = "STREAMSCAN_ASSOCIATIVE_ROWS"  # _associative.ROWS_ENV
OURS_BOTH = "streamscan linear_recurrence (autograd)"
OURS_CALLS = "streamscan forward + backward calls"
COPY = "torch copy_ (as many bytes)"
WARP = "accelerated_scan.warp"
TRITON = "accelerated_scan.scalar (Triton)"
TORCH_ASSOC = "torch associative_scan (compiled)"
SHORT = {OURS_FWD: "fwd", OURS_BOTH: "fwd+bwd autograd", OURS_CALLS: "fwd+bwd calls"}
TARGET_PEERS = (WARP, TRITON)  # "the faster of the accelerated_scan kernels"
# (impl, dtype, T) measured after everything else: a crash there must not take the rest with it.
LR_ISOLATE = ((WARP, "bfloat16", 65536),)


def _version(dist, module=None):
    try:
        return importlib.metadata.version(dist)
    except Exception:  # noqa: BLE001
        return getattr(module, "__version__", None)


def _say(line):
    print(line, flush=True)


def _one_line(e, limit=300):
    text = " ".join(f"{type(e).__name__}: {e}".split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Peer:
    """A peer's recurrence on (B, C, T) tensors: forward(a, b) -> h, autograd(a, b) -> h
    (differentiable; None: forward only), or why it is left out. max_t: the
    longest T it runs at (None: any)."""

    def __init__(self, name, forward=None, autograd=None, why=None, version=None, max_t=None):
        self.name, self.forward, self.autograd, self.why = name, forward, autograd, why
        self.version, self.max_t = version, max_t

    def info(self):
        return {"version": self.version, "left_out": self.why, "max_t": self.max_t}


def _torch_associative_scan(torch, max_t):
    """torch._higher_order_ops.associative_scan with the pair operator, compiled
    (fullgraph, static shapes) once a dtype and shape; forward only."""
    from torch._higher_order_ops.associative_scan import associative_scan

    def combine(x, y):
        return x[0] * y[0], y[0] * x[1] + y[1]

    def recurrence(a, b):
        return associative_scan(combine, (a, b), dim=a.dim() - 1)[1]

    compiled = {}

    def call(a, b):
        key = (a.dtype, tuple(a.shape))
        if key not in compiled:
            torch._dynamo.reset()  # a fresh compile: the recompile limit counts per function
            compiled.clear()
            compiled[key] = torch.compile(recurrence, fullgraph=True, dynamic=False)
        return compiled[key](a, b)
    return Peer(TORCH_ASSOC, call, None, version=torch.__version__, max_t=max_t)


def load_peers(torch, wanted=LR_PEERS, torch_max_t=LR_TORCH_MAX_T, log=_say):
    """The peers of `wanted` (warp, triton, torch), each loaded or with why not."""
    peers = []
    if "warp" in wanted:
        # Importing it builds its CUDA extension (torch.utils.cpp_extension, ninja, nvcc) the first time.
        log("bench: loading accelerated_scan.warp (it compiles its kernel at first use, which takes minutes)")
        try:
            module = importlib.import_module("accelerated_scan.warp")
            peers.append(Peer(WARP, module.scan, module.scan, version=_version("accelerated-scan")))
        except BaseException as e:  # noqa: BLE001 - a failed build may exit; the peer is left out
            if isinstance(e, KeyboardInterrupt):
                raise
            peers.append(Peer(WARP, why=_one_line(e)))
    if "triton" in wanted:
        why = []
        for name in ("accelerated_scan.scalar", "accelerated_scan.triton"):  # 0.3.1's name, then a later one's
            try:
                module = importlib.import_module(name)
                peers.append(Peer(TRITON, module.scan, module.scan, version=_version("accelerated-scan")))
                break
            except Exception as e:  # noqa: BLE001
                why.append(f"{name}: {_one_line(e)}")
        else:
            peers.append(Peer(TRITON, why="; ".join(why)))
    if "torch" in wanted:
        try:
            peers.append(_torch_associative_scan(torch, torch_max_t))
        except Exception as e:  # noqa: BLE001
            peers.append(Peer(TORCH_ASSOC, why=_one_line(e)))
    for p in peers:
        if p.why:
            log(f"bench: {p.name} left out: {p.why}")
    return peers


def accuracy_eps(dtype, length):
    """The relative bound of a float32-state result (16-bit: plus its own rounding)."""
    return (3.9e-3 if dtype in ("bfloat16", "float16") else 0.0) + 6e-8 * (64 + 8 * math.log2(length + 1))


def _shift_left(torch, x):
    """x[..., t + 1], zero at the end."""
    out = torch.zeros_like(x)
    out[..., :-1] = x[..., 1:]
    return out


def _shift_right(torch, x):
    """x[..., t - 1], zero at the start."""
    out = torch.zeros_like(x)
    out[..., 1:] = x[..., :-1]
    return out


def _sequential(a, b, reverse=False):
    """The recurrence of one sequence (lists of floats) in Python floats."""
    out, x = [0.0] * len(a), 0.0
    order = range(len(a) - 1, -1, -1) if reverse else range(len(a))
    for t in order:
        x = b[t] if a[t] == 0 else a[t] * x + b[t]
        out[t] = x
    return out


def oracle_agrees(torch, a, b, dh):
    """Whether streamscan's float64 recurrence (the oracle) matches a sequential
    loop on three sequences (first, middle, last), forward and gradient."""
    a2, b2, d2 = (x.reshape(-1, x.shape[-1]) for x in (a, b, dh))
    pick = sorted({0, a2.shape[0] // 2, a2.shape[0] - 1})
    a64, b64, d64 = (x[pick].double() for x in (a2, b2, d2))
    an = _shift_left(torch, a64)
    h = ss.linear_recurrence(a64, b64).cpu().tolist()
    g = ss.linear_recurrence(an, d64, reverse=True).cpu().tolist()
    for i in range(len(pick)):
        av, bv, dv, nv = (x[i].cpu().tolist() for x in (a64, b64, d64, an))
        for got, want, bound in ((h[i], _sequential(av, bv), _sequential([abs(v) for v in av], [abs(v) for v in bv])),
                                 (g[i], _sequential(nv, dv, True),
                                  _sequential([abs(v) for v in nv], [abs(v) for v in dv], True))):
            if any(abs(x - y) > 1e-12 * m + 1e-300 for x, y, m in zip(got, want, bound)):
                return False
    return True


def worst_of_bound(torch, a, b, dh, h, grads=None, eps=None):
    """The largest error of h (and of grads = (grad_a, grad_b)) against the
    float64 oracle, as a fraction of its float32-state bound: <= 1 is within it.
    The oracle is made a group of rows at a time, to bound its memory."""
    length = a.shape[-1]
    eps = accuracy_eps(str(a.dtype).replace("torch.", ""), length) if eps is None else eps
    a2, b2, h2 = (x.reshape(-1, length) for x in (a, b, h))
    d2 = dh.reshape(-1, length) if grads is not None else None
    g2 = [x.reshape(-1, length) for x in grads] if grads is not None else None
    step = max(1, (1 << 26) // length)
    worst = 0.0
    tiny = 1e-300

    def most(ratio):  # NaN wins (Python's max would drop it)
        v = float(ratio.max())
        return v if not math.isfinite(v) or v > worst else worst

    for r0 in range(0, a2.shape[0], step):
        r = slice(r0, r0 + step)
        a64, b64 = a2[r].double(), b2[r].double()
        want = ss.linear_recurrence(a64, b64)
        m = ss.linear_recurrence(a64.abs(), b64.abs())
        worst = most((h2[r].double() - want).abs() / (eps * m + tiny))
        if grads is not None:
            d64 = d2[r].double()
            an = _shift_left(torch, a64)
            g = ss.linear_recurrence(an, d64, reverse=True)
            gm = ss.linear_recurrence(an.abs(), d64.abs(), reverse=True)
            hp, mp = _shift_right(torch, want), _shift_right(torch, m)
            if math.isfinite(worst):
                worst = most((g2[1][r].double() - g).abs() / (eps * gm + tiny))
            if math.isfinite(worst):
                worst = most((g2[0][r].double() - g * hp).abs() / (eps * gm * (2 * hp.abs() + mp) + tiny))
        if not math.isfinite(worst):
            return worst
    return worst


def _check_text(worst, oracle_ok):
    if worst is None:
        return None
    if not oracle_ok:
        return "unchecked (the float64 oracle disagrees with a sequential loop)"
    if not math.isfinite(worst):
        return "outside float32-state accuracy (non-finite values)"
    verdict = "ok" if worst <= 1 else "outside float32-state accuracy"
    return f"{verdict} (worst {worst:.2f} of the bound)"


def rows(torch, timer, peers, lengths=LR_LENGTHS, dtypes=LR_DTYPES, lead=LR_LEAD, device="cuda",
         assoc=True, isolate=LR_ISOLATE, log=_say):
    """The linear-recurrence rows (dicts, as bench.run's), measured with
    `timer` (bench.Timer's gpu_ms) on `device`; peers from load_peers."""
    out = []
    state = {"lost": None}  # the error that left the CUDA context unusable
    cuda = device == "cuda"
    isolated = set(isolate)
    has_assoc = assoc and hasattr(ss, "associative_scan")

    def free():
        if cuda and state["lost"] is None:
            torch.cuda.empty_cache()

    def healthy():
        if not cuda or state["lost"] is not None:
            return state["lost"] is None
        try:
            torch.cuda.synchronize()
            return True
        except Exception as e:  # noqa: BLE001 - an asynchronous fault: nothing more runs on the GPU
            state["lost"] = _one_line(e)
            return False

    def emit(entry):
        out.append(entry)
        T, dt = entry["T"], entry["dtype"]
        head = f"linrec {dt:<8} T={T:<6} {'fwd' if entry['pass'] == FORWARD else 'fwd+bwd':<7} {entry['impl']:<44}"
        if entry.get("ms") is None:
            log(f"{head} {'-':>9}     {entry.get('note', '')}")
            return
        extra = " ".join(f"{v}x {k}" for k, v in entry.get("speedup_vs", {}).items())
        if "vs_linear_recurrence" in entry:
            extra += f" {entry['vs_linear_recurrence']}x linear_recurrence's time"
        check = entry.get("check") or ""
        note = f"  [{entry['note']}]" if entry.get("note") else ""
        log(f"{head} {entry['ms']:9.4f} ms  noise {entry['noise']:5.1%}  {entry.get('gbps', ''):>7} GB/s  "
            f"{entry.get('pct_of_copy', ''):>5}% copy  {extra}  {check}{note}".rstrip())

    def base(pass_, dtype, T, impl):
        n = math.prod(lead) * T
        return {"case": CASE, "pass": pass_, "dtype": dtype, "T": T, "shape": list(lead) + [T],
                "log2_n": n.bit_length() - 1, "impl": impl}

    def timed(pass_, dtype, T, impl, timing, nbytes, copy_ms, worst=None, oracle_ok=True, note=None):
        e = base(pass_, dtype, T, impl)
        e.update({"ms": round(timing.ms, 5), "noise": round(timing.noise, 3), "samples": timing.samples,
                  "min_ms": round(timing.min, 5), "max_ms": round(timing.max, 5), "bytes": nbytes,
                  "gbps": round(nbytes / (timing.ms * 1e-3) / 1e9, 1)})
        if copy_ms:
            e["copy_ms"] = round(copy_ms, 5)
            e["pct_of_copy"] = round(100 * copy_ms / timing.ms, 1)
        if worst is not None:
            # NON_FINITE stands for NaN or inf (JSON has neither), so the accuracy target fails on it
            e["worst_of_bound"] = round(worst, 4) if math.isfinite(worst) else NON_FINITE
            e["check"] = _check_text(worst, oracle_ok)
        if note:
            e["note"] = note
        return e

    def failed(pass_, dtype, T, impl, why):
        e = base(pass_, dtype, T, impl)
        e.update({"ms": None, "note": why})
        emit(e)

    def compare(entry, peer_ms):
        """speedup_vs (peer's time / ours) and vs_faster_peer (the faster accelerated_scan kernel)."""
        if not peer_ms:
            return
        entry["peer_ms"] = {k: round(v, 5) for k, v in peer_ms.items()}
        entry["speedup_vs"] = {k: round(v / entry["ms"], 3) for k, v in peer_ms.items()}
        mine = {k: v for k, v in peer_ms.items() if k in TARGET_PEERS}
        if mine:
            name = min(mine, key=mine.get)
            entry["vs_faster_peer"] = round(mine[name] / entry["ms"], 3)
            entry["faster_peer"] = name

    def measure(pass_, dtype, T, impl, make, nbytes, copy_ms, data, oracle_ok):
        """make() -> (call, outputs): runs once (warm-up, compile), outputs
        checked, then the call timed. None (and a note row) where it raises."""
        if state["lost"] is not None:
            failed(pass_, dtype, T, impl, f"not run: the CUDA context was lost earlier ({state['lost']})")
            return None
        try:
            call, outputs = make()
            a, b, dh = data
            if pass_ == FORWARD:
                worst = worst_of_bound(torch, a, b, dh, outputs)
            else:
                worst = worst_of_bound(torch, a, b, dh, outputs[0], outputs[1:])
            del outputs
            timing = timer.gpu_ms(call)
        except Exception as e:  # noqa: BLE001 - a peer's (or our) failure is a note, not the end
            why = _one_line(e)
            if not healthy():
                why += " (the CUDA context is lost: what follows is not run)"
            failed(pass_, dtype, T, impl, why)
            free()
            return None
        return timed(pass_, dtype, T, impl, timing, nbytes, copy_ms, worst, oracle_ok)

    def forward_of(fn, a, b):
        def make():
            return (lambda: fn(a, b)), fn(a, b)
        return make

    def both_of(fn, a, b, dh):
        ag, bg = a.detach().requires_grad_(), b.detach().requires_grad_()

        def step():
            h = fn(ag, bg)
            return (h,) + tuple(torch.autograd.grad(h, (ag, bg), dh))

        def make():
            h, ga, gb = step()
            return step, (h.detach(), ga, gb)
        return make

    def calls_of(a, b, dh):
        def step():
            h = _recurrence.recurrence_direct(a, b, -1, None, None, False, None)
            return (h,) + _recurrence.recurrence_backward_direct(a, h, dh, None, -1, False)[:2]

        def make():
            return step, step()
        return make

    def assoc_of(a, b, rows=None):
        """rows: STREAMSCAN_ASSOCIATIVE_ROWS for the call (None: the caller's environment)."""
        def fn(a, b):
            before = os.environ.get(ASSOC_ROWS_ENV)
            if rows is not None:
                os.environ[ASSOC_ROWS_ENV] = rows
            try:
                r = ss.associative_scan(PAIR, (a, b), names=("a", "b"), keep=("b",), axis=-1)
            finally:
                if rows is not None:
                    if before is None:
                        os.environ.pop(ASSOC_ROWS_ENV, None)
                    else:
                        os.environ[ASSOC_ROWS_ENV] = before
            return r[0] if isinstance(r, (tuple, list)) else r
        return forward_of(fn, a, b)

    def inputs(dtype, T):
        dt = getattr(torch, dtype)
        gen = torch.Generator(device=device).manual_seed(zlib.crc32(f"{dtype} {T}".encode()))
        shape = tuple(lead) + (T,)
        a = torch.rand(shape, device=device, generator=gen).to(dt)
        b = (torch.rand(shape, device=device, generator=gen) * 2 - 1).to(dt)
        dh = (torch.rand(shape, device=device, generator=gen) * 2 - 1).to(dt)
        return a, b, dh

    def copy_ms(nbytes):
        src = torch.empty(nbytes // 2, dtype=torch.uint8, device=device)
        dst = torch.empty_like(src)
        t = timer.gpu_ms(lambda: dst.copy_(src))
        del src, dst
        free()
        return t

    def runs(peer, dtype, T, pass_):
        if peer.why or (peer.max_t is not None and T > peer.max_t):
            return False
        return (peer.forward if pass_ == FORWARD else peer.autograd) is not None

    def case(dtype, T, only=None, ours=None):
        """One (dtype, T): copies, peers, ours. only: the peer names to run
        (None: those not isolated, and ours). ours: the rows of ours to update
        with the peers' times (a rerun of isolated peers)."""
        n = math.prod(lead) * T
        size = torch.empty((), dtype=getattr(torch, dtype)).element_size()
        fwd_bytes, both_bytes = 3 * n * size, 8 * n * size
        data = inputs(dtype, T)
        a, b, dh = data
        oracle_ok = oracle_agrees(torch, a, b, dh)
        if not oracle_ok:
            log(f"bench: linrec {dtype} T={T}: the float64 oracle disagrees with a sequential loop; checks unreliable")
        copies = {}
        for pass_, nbytes in ((FORWARD, fwd_bytes), (BOTH, both_bytes)):
            try:
                t = copy_ms(nbytes)
            except Exception as e:  # noqa: BLE001
                copies[pass_] = None
                if only is None:
                    failed(pass_, dtype, T, COPY, _one_line(e))
                continue
            copies[pass_] = t.ms
            if only is None:
                emit(timed(pass_, dtype, T, COPY, t, nbytes, t.ms))
        mine = ours if ours is not None else {}
        for pass_, nbytes in ((FORWARD, fwd_bytes), (BOTH, both_bytes)):
            peer_ms = {}
            for peer in peers:
                if only is not None and peer.name not in only:
                    continue
                if only is None and (peer.name, dtype, T) in isolated:
                    continue
                if peer.why:
                    if only is None and pass_ == FORWARD:
                        failed(pass_, dtype, T, peer.name, f"left out: {peer.why}")
                    continue
                if not runs(peer, dtype, T, pass_):
                    continue
                fn = peer.forward if pass_ == FORWARD else peer.autograd
                make = forward_of(fn, a, b) if pass_ == FORWARD else both_of(fn, a, b, dh)
                e = measure(pass_, dtype, T, peer.name, make, nbytes, copies[pass_], data, oracle_ok)
                if e is not None:
                    emit(e)
                    peer_ms[peer.name] = e["ms"]
            if only is not None:  # a rerun: ours were measured already; add these peers to their ratios
                for e in mine.get(pass_, ()):
                    times = dict(e.get("peer_ms", {}))
                    times.update(peer_ms)
                    compare(e, times)
                    if peer_ms:
                        log(f"linrec {dtype:<8} T={T:<6} {e['impl']} against the isolated peers: "
                            + " ".join(f"{v}x {k}" for k, v in e["speedup_vs"].items()))
                continue
            entries = []
            if pass_ == FORWARD:
                e = measure(pass_, dtype, T, OURS_FWD, forward_of(ss.linear_recurrence, a, b), nbytes,
                            copies[pass_], data, oracle_ok)
                if e is not None:
                    compare(e, peer_ms)
                    emit(e)
                    entries.append(e)
                if has_assoc:
                    # The default (one warp a row here), then every row on the look-back kernel.
                    for impl, rows_env in ((OURS_ASSOC, None), (OURS_ASSOC_LOOKBACK, "lookback")):
                        ea = measure(pass_, dtype, T, impl, assoc_of(a, b, rows_env), nbytes, copies[pass_], data,
                                     oracle_ok)
                        if ea is not None:
                            compare(ea, peer_ms)
                            if e is not None:
                                ea["vs_linear_recurrence"] = round(ea["ms"] / e["ms"], 3)
                            emit(ea)
                elif assoc:
                    failed(pass_, dtype, T, OURS_ASSOC, "streamscan has no associative_scan")
            else:
                for impl, make in ((OURS_BOTH, both_of(ss.linear_recurrence, a, b, dh)),
                                   (OURS_CALLS, calls_of(a, b, dh))):
                    e = measure(pass_, dtype, T, impl, make, nbytes, copies[pass_], data, oracle_ok)
                    if e is not None:
                        compare(e, peer_ms)
                        emit(e)
                        entries.append(e)
            mine[pass_] = entries
        del data, a, b, dh
        free()
        return mine

    later = []
    for dtype in dtypes:
        for T in lengths:
            if state["lost"] is not None:
                failed(FORWARD, dtype, T, OURS_FWD, f"not run: the CUDA context was lost earlier ({state['lost']})")
                continue
            try:
                ours = case(dtype, T)
            except Exception as e:  # noqa: BLE001 - the inputs, the oracle: a note, and the next case
                why = _one_line(e)
                if not healthy():
                    why += " (the CUDA context is lost: what follows is not run)"
                failed(FORWARD, dtype, T, OURS_FWD, f"case not run: {why}")
                free()
                continue
            names = [p.name for p in peers if (p.name, dtype, T) in isolated and not p.why]
            if names:
                later.append((dtype, T, names, ours))
    for dtype, T, names, ours in later:
        log(f"bench: linrec {dtype} T={T}: {', '.join(names)} last (isolated: a known crash there)")
        if state["lost"] is not None:
            for name in names:
                failed(FORWARD, dtype, T, name, f"not run: the CUDA context was lost earlier ({state['lost']})")
            continue
        try:
            case(dtype, T, only=names, ours=ours)
        except Exception as e:  # noqa: BLE001 - inputs or copies failed: the context is likely gone
            healthy()
            for name in names:
                failed(FORWARD, dtype, T, name, _one_line(e))
    return out


# Issue 55's targets: judged per dtype over the T measured.
def targets(all_rows):
    """Issue 55's targets against the linear-recurrence rows ([] without any):
    dicts with what, measured, want, met (None where not measured), note,
    unit ("%", "x" or "of bound") and at_most (the measure must not exceed want)."""
    lr = [r for r in all_rows if r.get("case") == CASE]
    out = []
    order = {d: i for i, d in enumerate(LR_DTYPES)}
    for dtype in sorted({r["dtype"] for r in lr}, key=lambda d: (order.get(d, 99), d)):
        def pick(impls, passes, ok):
            return sorted((r for r in lr if r["dtype"] == dtype and r["impl"] in impls and r["pass"] in passes
                           and ok(r["T"])), key=lambda r: (r["T"], r["pass"]))

        def judge(what, picked, key, want, unit, at_most=False, label=None):
            values = [(r, r.get(key)) for r in picked if r.get(key) is not None]
            notes = []
            for r, v in values:
                shown = f"{v}%" if unit == "%" else f"{v}x" if unit == "x" else f"{v}"
                where = f"T={r['T']}" + (f" {label(r)}" if label and label(r) else "")
                notes.append(f"{where} {shown}")
            failures = {}  # a note once, with the T it holds at
            for r in picked:
                if r.get(key) is None and r.get("note"):
                    failures.setdefault(f"{r['impl']}: {r['note']}", []).append(str(r["T"]))
            notes += [f"T={', '.join(ts)} {text}" for text, ts in failures.items()]
            if not values:
                out.append({"what": what, "measured": None, "want": want, "met": None, "note": "; ".join(notes),
                            "unit": unit, "at_most": at_most, "issue": 55})
                return
            measured = max(v for _, v in values) if at_most else min(v for _, v in values)
            met = measured <= want if at_most else measured >= want
            out.append({"what": what, "measured": measured, "want": want, "met": met, "note": ", ".join(notes),
                        "unit": unit, "at_most": at_most, "issue": 55})

        def peer_label(r):
            return f"vs {r['faster_peer']}" if r.get("faster_peer") else ""

        fwd, both = (FORWARD,), (BOTH,)
        judge(f"{dtype} forward >= 90% of copy, T >= 2048", pick((OURS_FWD,), fwd, lambda t: t >= 2048),
              "pct_of_copy", 90.0, "%")
        judge(f"{dtype} forward >= 70% of copy at T = 128", pick((OURS_FWD,), fwd, lambda t: t == 128),
              "pct_of_copy", 70.0, "%")
        judge(f"{dtype} forward + backward >= 85% of copy (the calls)", pick((OURS_CALLS,), both, lambda t: True),
              "pct_of_copy", 85.0, "%")
        judge(f"{dtype} forward >= 1.2x the faster accelerated_scan, T <= 4096",
              pick((OURS_FWD,), fwd, lambda t: t <= 4096), "vs_faster_peer", 1.2, "x", label=peer_label)
        judge(f"{dtype} forward + backward (autograd) >= 1.2x the faster accelerated_scan, T <= 4096",
              pick((OURS_BOTH,), both, lambda t: t <= 4096), "vs_faster_peer", 1.2, "x", label=peer_label)
        judge(f"{dtype} faster than both accelerated_scan kernels at every T",
              pick((OURS_FWD, OURS_BOTH), fwd + both, lambda t: True), "vs_faster_peer", 1.0, "x",
              label=lambda r: ("fwd " if r["pass"] == FORWARD else "fwd+bwd ") + peer_label(r))
        judge(f"{dtype} within float32-state accuracy at every T (fraction of the bound)",
              pick((OURS_FWD, OURS_BOTH, OURS_CALLS), fwd + both, lambda t: True), "worst_of_bound",
              1.0, "of bound", at_most=True, label=lambda r: SHORT[r["impl"]])
        judge(f"{dtype} associative_scan (pair operator) <= 1.10x linear_recurrence's forward time",
              pick((OURS_ASSOC,), fwd, lambda t: True), "vs_linear_recurrence", 1.10, "x", at_most=True,
              label=lambda r: "" if str(r.get("check", "")).startswith("ok") else f"({r.get('check')})")
    return out
