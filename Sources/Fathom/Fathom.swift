// The umbrella module: re-exports Fathom's layers and adds what a tool built on them needs:
// location files, presets, oracle verification and one-call rendering to PNG.
@_exported import ArbitraryPrecision
@_exported import FathomGPU
@_exported import FractalEngine
@_exported import FractalImaging
@_exported import FractalNumerics
