"""The interface of OpenRLHF 0.11.2's openrlhf/utils/agent.py that an agent file subclasses."""

from abc import ABC, abstractmethod


class AgentInstanceBase(ABC):
    @abstractmethod
    def __init__(self, *args, **kwargs):
        pass

    async def reset(self, states: dict, **kwargs):
        return states

    @abstractmethod
    async def step(self, state_dict: dict, **kwargs):
        raise NotImplementedError


class MultiTurnAgentExecutor:
    def __init__(self, agent_instance_cls):
        assert issubclass(agent_instance_cls, AgentInstanceBase)
        self.agent_instance_cls = agent_instance_cls
