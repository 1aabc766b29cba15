"""torch.utils.tensorboard needs the tensorboard package, which torch does not install: importing it fails as
torch's does without it (ModuleNotFoundError: No module named 'tensorboard')."""
raise ModuleNotFoundError("No module named 'tensorboard'", name="tensorboard")
