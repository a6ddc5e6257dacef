#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's elementary functions, under one portable name.
public enum Math {
    /// The natural logarithm of `x`.
    @inlinable public static func log(_ x: Double) -> Double { libm_log(x) }
    /// The base-2 logarithm of `x`.
    @inlinable public static func log2(_ x: Double) -> Double { libm_log2(x) }
    /// The cosine of `x` radians.
    @inlinable public static func cos(_ x: Double) -> Double { libm_cos(x) }
    /// The sine of `x` radians.
    @inlinable public static func sin(_ x: Double) -> Double { libm_sin(x) }
    /// The angle of the point `(x, y)` from the positive x-axis, in radians in [-pi, pi].
    @inlinable public static func atan2(_ y: Double, _ x: Double) -> Double { libm_atan2(y, x) }
    /// `e^x`.
    @inlinable public static func exp(_ x: Double) -> Double { libm_exp(x) }
    /// `2^x`.
    @inlinable public static func exp2(_ x: Double) -> Double { libm_exp2(x) }
    /// `x^y`.
    @inlinable public static func pow(_ x: Double, _ y: Double) -> Double { libm_pow(x, y) }
}

@usableFromInline func libm_log(_ x: Double) -> Double { log(x) }
@usableFromInline func libm_log2(_ x: Double) -> Double { log2(x) }
@usableFromInline func libm_cos(_ x: Double) -> Double { cos(x) }
@usableFromInline func libm_sin(_ x: Double) -> Double { sin(x) }
@usableFromInline func libm_atan2(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
@usableFromInline func libm_exp(_ x: Double) -> Double { exp(x) }
@usableFromInline func libm_exp2(_ x: Double) -> Double { exp2(x) }
@usableFromInline func libm_pow(_ x: Double, _ y: Double) -> Double { pow(x, y) }
