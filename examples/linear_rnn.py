"""A small linear-RNN layer trained with torch on a toy sequence task, its
recurrence evaluated by streamscan.linear_recurrence (forward and backward).

The layer, per time step t and hidden channel (elementwise):

    a[t] = sigmoid(W_a x[t] + c)          a gate in (0, 1): how much of the past to keep
    b[t] = (1 - a[t]) * (W_b x[t])        what comes in
    h[t] = a[t] * h[t-1] + b[t]           the recurrence: streamscan.linear_recurrence(a, b, dim=1)
    y[t] = W_o h[t]                       readout

The task: from 4 noise signals, predict two running averages of them over a
long sequence: an exponential moving average of signal 0 with a slow decay
(0.98: a memory of ~50 steps) and one of (signal 1 - signal 2) with a fast one
(0.8). A linear RNN can represent both exactly, so the loss should fall by
orders of magnitude. The layer's tensors are [batch, T, channels]: the time
axis is dim=1 and the recurrence reads them in place (no transposition).

    python examples/linear_rnn.py                      # CUDA where available, else the CPU
    python examples/linear_rnn.py --device cpu --length 2048 --steps 200
"""

import argparse
import time

import torch

import streamscan


class LinearRNN(torch.nn.Module):
    def __init__(self, inputs: int, hidden: int, outputs: int):
        super().__init__()
        self.gate = torch.nn.Linear(inputs, hidden)
        self.value = torch.nn.Linear(inputs, hidden, bias=False)
        self.readout = torch.nn.Linear(hidden, outputs)
        torch.nn.init.constant_(self.gate.bias, 2.0)  # start with long memories (a ~ 0.88)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: [batch, T, inputs]
        a = torch.sigmoid(self.gate(x))
        b = (1 - a) * self.value(x)
        h = streamscan.linear_recurrence(a, b, dim=1)  # [batch, T, hidden], differentiable
        return self.readout(h)


def reference_recurrence(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The same recurrence as a loop of torch ops (slow: one step a time)."""
    h, out = torch.zeros_like(a[:, 0]), []
    for t in range(a.shape[1]):
        h = a[:, t] * h + b[:, t]
        out.append(h)
    return torch.stack(out, 1)


def ema(signal: torch.Tensor, decay: float) -> torch.Tensor:
    """Exponential moving average along dim 1 (the targets), by the same call."""
    a = torch.full_like(signal, decay)
    return streamscan.linear_recurrence(a, (1 - decay) * signal, dim=1)


def batch(size: int, length: int, device: str):
    x = torch.randn(size, length, 4, device=device)
    y = torch.stack([ema(x[..., 0], 0.98), ema(x[..., 1] - x[..., 2], 0.8)], -1)
    return x, y


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() and streamscan.has_cuda else "cpu")
    parser.add_argument("--length", type=int, default=None, help="time steps T (default 16384 on CUDA, 4096 on CPU)")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    length = args.length or (16384 if args.device.startswith("cuda") else 4096)
    torch.manual_seed(args.seed)

    # The call against the loop of torch ops, values and gradients, once.
    a = torch.rand(2, 300, 3, device=args.device, dtype=torch.float64, requires_grad=True)
    b = torch.randn(2, 300, 3, device=args.device, dtype=torch.float64, requires_grad=True)
    got, want = streamscan.linear_recurrence(a, b, dim=1), reference_recurrence(a, b)
    g = torch.randn_like(got)
    grads, want_grads = torch.autograd.grad(got, (a, b), g), torch.autograd.grad(want, (a, b), g)
    print(f"check against a loop of torch ops: |h| off by {(got - want).abs().max().item():.1e}, "
          f"gradients by {max((x - y).abs().max().item() for x, y in zip(grads, want_grads)):.1e}")

    model = LinearRNN(4, args.hidden, 2).to(args.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    x_test, y_test = batch(args.batch, length, args.device)
    with torch.no_grad():
        print(f"T = {length}, batch {args.batch}, hidden {args.hidden}, on {args.device}; "
              f"loss before training {torch.nn.functional.mse_loss(model(x_test), y_test).item():.3e} "
              f"(predicting 0: {y_test.square().mean().item():.3e})")
    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        x, y = batch(args.batch, length, args.device)
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()  # through streamscan::linear_recurrence_backward
        optimizer.step()
        if step % max(args.steps // 10, 1) == 0 or step == 1:
            print(f"step {step:4d}  loss {loss.item():.3e}")
    if args.device.startswith("cuda"):
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    with torch.no_grad():
        final = torch.nn.functional.mse_loss(model(x_test), y_test).item()
    print(f"held-out loss {final:.3e} after {args.steps} steps ({1e3 * elapsed / args.steps:.1f} ms a step)")


if __name__ == "__main__":
    main()
