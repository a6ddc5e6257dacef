@_exported import FractalEngine
