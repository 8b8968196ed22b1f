class Converter:
    @staticmethod
    def to_fahrenheit(celsius):
        """Degrees Celsius to degrees Fahrenheit."""
        return celsius * 9 / 5 - 32
