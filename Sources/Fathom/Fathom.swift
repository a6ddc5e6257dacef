// The umbrella module: re-exports Fathom's layers and adds what a tool built on them needs:
// location files, presets, oracle verification and one-call rendering to PNG.
// FractalNumerics (Complex, DoubleDouble, FloatExp) is not re-exported: its `Complex` would clash
// with swift-numerics' in a tool that imports both. A tool that wants the number types imports
// FractalNumerics itself.
@_exported import ArbitraryPrecision
@_exported import FathomGPU
@_exported import FractalEngine
@_exported import FractalImaging
