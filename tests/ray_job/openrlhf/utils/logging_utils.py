"""OpenRLHF 0.11.2's TensorboardLogger interface, writing nowhere (no tensorboard on this cluster)."""


class TensorboardLogger:
    def __init__(self, args=None) -> None:
        self.logged = []

    def log_train(self, global_step, logs_dict) -> None:
        self.logged.append(("train", global_step, dict(logs_dict)))

    def log_eval(self, global_step, logs_dict) -> None:
        self.logged.append(("eval", global_step, dict(logs_dict)))

    def close(self) -> None:
        pass
