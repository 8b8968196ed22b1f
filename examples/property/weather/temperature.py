"""Temperatures that know both scales."""


class Temperature:
    def __init__(self, celsius):
        self.celsius = celsius

    @classmethod
    def from_fahrenheit(cls, degrees):
        return cls((degrees - 32) * 5 / 9)

    @property
    def fahrenheit(self):
        """The same temperature in degrees Fahrenheit."""
        return self.celsius * 9 / 5 - 32

    def __repr__(self):
        return f"Temperature({self.celsius!r})"
