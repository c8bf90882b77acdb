#!/usr/bin/env python3
# tools/torch_step.py: a short PyTorch training run for tools/gpu-acceptance, run under
# gpuft (`gpuft -- python3 tools/torch_step.py`): a small MLP on a fixed synthetic
# regression task, 50 steps of Adam on the GPU; the loss must fall by 10x.
# Exit 0 when it does, 1 when it does not, 77 when torch or a GPU is missing.
import sys

try:
    import torch
except ImportError:
    print("torch_step: PyTorch is not installed")
    sys.exit(77)
if not torch.cuda.is_available():
    print("torch_step: PyTorch sees no CUDA device")
    sys.exit(77)

torch.manual_seed(0)
dev = torch.device("cuda")
x = torch.randn(4096, 64, device=dev)
w_true = torch.randn(64, 1, device=dev)
y = torch.tanh(x @ w_true)
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1)).to(dev)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
first = None
for step in range(50):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    if first is None:
        first = loss.item()
last = loss.item()
print(f"torch_step: {torch.cuda.get_device_name(0)}, torch {torch.__version__}: "
      f"loss {first:.4f} -> {last:.4f} in 50 steps: {'ok' if last < first / 10 else 'NOT LEARNING'}")
sys.exit(0 if last < first / 10 else 1)
