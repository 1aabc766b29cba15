"""core.optim: torch.optim's optimizers (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam,
LBFGS) and learning-rate schedulers."""
from . import lr_scheduler
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
