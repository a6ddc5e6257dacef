// A stand-in for swift-numerics' ComplexModule (github.com/apple/swift-numerics), which cannot be
// fetched here: its `Complex` with the same name, generic shape and initialiser, so that a tool
// importing it beside Fathom meets any clash the real package would (`ambiguous use of
// 'init(_:_:)'` while Fathom's umbrella re-exported FractalNumerics' `Complex`).
public struct Complex<RealType: BinaryFloatingPoint>: Equatable {
    public var real: RealType
    public var imaginary: RealType

    public init(_ real: RealType, _ imaginary: RealType) {
        self.real = real
        self.imaginary = imaginary
    }

    public static func + (a: Complex, b: Complex) -> Complex { Complex(a.real + b.real, a.imaginary + b.imaginary) }

    public static func * (a: Complex, b: Complex) -> Complex {
        Complex(a.real * b.real - a.imaginary * b.imaginary, a.real * b.imaginary + a.imaginary * b.real)
    }
}
