"""tensorcli: see what a PyTorch tensor op does, from the shell."""
__version__ = "0.1.0"
