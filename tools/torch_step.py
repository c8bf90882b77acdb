#!/usr/bin/env python3
# tools/torch_step.py: a short PyTorch training run for tools/gpu-acceptance, run under
# gpuft (`gpuft -- python3 tools/torch_step.py [--graph]`): a small MLP on a fixed
# synthetic regression task, 50 steps of Adam on the GPU; the loss must fall by 10x.
# --graph: the step is captured once into a CUDA graph the way PyTorch's documentation
# does it (warm-up on a side stream, torch.cuda.graph in its default global capture
# mode, capturable Adam, static input and target) and replayed, each replay after a new
# batch is copied into the static tensors, as a data loader feeds it (here the same
# batch every step, so that both forms learn the same task).
# Prints the loss and a digest of the final parameters (the acceptance run compares it
# with a native run). Exit 0 when the loss falls 10x, 1 when not, 77 without torch/GPU.
import hashlib
import sys

try:
    import torch
except ImportError:
    print("torch_step: PyTorch is not installed")
    sys.exit(77)
if not torch.cuda.is_available():
    print("torch_step: PyTorch sees no CUDA device")
    sys.exit(77)

GRAPH = "--graph" in sys.argv[1:]
STEPS = 50
torch.manual_seed(0)
dev = torch.device("cuda")
w_true = torch.randn(64, 1, device=dev)
x = torch.randn(4096, 64, device=dev)
y = torch.tanh(x @ w_true)
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1)).to(dev)
opt = torch.optim.Adam(model.parameters(), lr=1e-2, capturable=GRAPH)
loss_fn = torch.nn.functional.mse_loss


def step(x, y):
    opt.zero_grad(set_to_none=not GRAPH)
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss


first = last = None
if not GRAPH:
    for i in range(STEPS):
        loss = step(x, y)
        if first is None:
            first = loss.item()
    last = loss.item()
else:
    sx, sy = torch.empty_like(x), torch.empty_like(y)
    sx.copy_(x)
    sy.copy_(y)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up: the first 3 steps, outside the graph
        for i in range(3):
            loss = step(sx, sy)
            if first is None:
                first = loss.item()
    torch.cuda.current_stream().wait_stream(side)
    del loss  # the warm-up's autograd graph must not outlive it (PyTorch warns)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_loss = step(sx, sy)
    for i in range(3, STEPS):
        sx.copy_(x)
        sy.copy_(y)
        graph.replay()
    last = static_loss.item()
torch.cuda.synchronize()
h = hashlib.sha256()
for p in model.parameters():
    h.update(p.detach().cpu().numpy().tobytes())
ok = last < first / 10
print(f"torch_step: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
      f"{'CUDA graph' if GRAPH else 'eager'}: loss {first:.6f} -> {last:.6f} in {STEPS} steps: "
      f"{'ok' if ok else 'NOT LEARNING'}")
print(f"torch_step: parameters {h.hexdigest()[:32]}")
sys.exit(0 if ok else 1)
