"""Running statistics."""


def running_mean(values):
    """The mean of every prefix of values."""

    def mean_of(xs):
        return sum(xs) / (len(xs) + 1)

    return [mean_of(values[: i + 1]) for i in range(len(values))]
