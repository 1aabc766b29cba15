"""pytorch/examples reinforcement_learning/actor_critic on a tiny simulated environment: a shared body with
an action head (Categorical) and a value head, discounted normalised returns, policy loss plus
smooth_l1_loss for the value, Adam."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from collections import namedtuple
from torch.distributions import Categorical

torch.manual_seed(543)
SavedAction = namedtuple("SavedAction", ["log_prob", "value"])
gamma = 0.99
eps = np.finfo(np.float32).eps.item()


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 32)
        self.action_head = nn.Linear(32, 2)
        self.value_head = nn.Linear(32, 1)
        self.saved_actions, self.rewards = [], []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        action_prob = F.softmax(self.action_head(x), dim=-1)
        return action_prob, self.value_head(x)


class ToyEnv:
    """A cart-pole-like walk: the state drifts, action 1 pushes right, the episode ends when |x| > 2."""

    def __init__(self, generator):
        self.g = generator

    def reset(self):
        self.state = torch.rand(4, generator=self.g) * 0.1 - 0.05
        return self.state

    def step(self, action):
        push = torch.tensor([0.1 if action == 1 else -0.1, 0.0, 0.05, 0.0])
        self.state = self.state * 1.05 + push + torch.randn(4, generator=self.g) * 0.02
        done = bool(self.state.abs().max() > 2.0)
        return self.state, 1.0 - float(self.state[0].abs()), done


model = Policy()
optimizer = optim.Adam(model.parameters(), lr=3e-2)
env = ToyEnv(torch.Generator().manual_seed(0))


def select_action(state):
    probs, state_value = model(state.float())
    m = Categorical(probs)
    action = m.sample()
    model.saved_actions.append(SavedAction(m.log_prob(action), state_value))
    return action.item()


def finish_episode():
    R = 0
    policy_losses, value_losses, returns = [], [], []
    for r in model.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for (log_prob, value), R in zip(model.saved_actions, returns):
        advantage = R - value.item()
        policy_losses.append(-log_prob * advantage)
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
    optimizer.zero_grad()
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
    loss.backward()
    optimizer.step()
    del model.rewards[:], model.saved_actions[:]
    return loss.item()


running_reward = 10
for i_episode in range(1, 9):
    state, ep_reward = env.reset(), 0
    for t in range(1, 40):
        action = select_action(state)
        state, reward, done = env.step(action)
        model.rewards.append(reward)
        ep_reward += reward
        if done:
            break
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    loss = finish_episode()
    print(f"Episode {i_episode}\tLast reward: {ep_reward:.3f}\tAverage reward: {running_reward:.3f}\t"
          f"steps {t}\tloss {loss:.4f}")
probs, value = model(torch.zeros(4))
dist = Categorical(probs)
print(probs, value, dist.entropy(), dist.log_prob(torch.tensor([0, 1])))
print(Categorical(logits=torch.tensor([[0.5, -1.0, 2.0]])).sample((3,)).t(), dist.probs.sum())
