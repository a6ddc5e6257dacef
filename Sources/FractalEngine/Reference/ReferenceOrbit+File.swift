import ArbitraryPrecision
import Foundation
import FractalNumerics

/// Reference orbit files: a later render, or another machine, can reuse an orbit instead of
/// recomputing it. Little-endian binary:
///
///     "FATHOMRO" | version u32 = 2 | power i64 | precision bits i64 | count i64 |
///     escaped u8 | has low words u8 | is Julia u8 |
///     point re, point im, [julia re, julia im]: each a u64 length + UTF-8 decimal string |
///     re[count], im[count] f64 | [reLow[count], imLow[count] f64] |
///     tiny count i64 | per entry: index i64, re significand f64, re exponent i64, im ... |
///     gap count i64 | per entry: index i64, significand f64, exponent i64   (version 2; a
///     version 1 file, without escape gaps, still reads)
extension ReferenceOrbit {
    static let magic = Array("FATHOMRO".utf8)

    /// Writes the orbit to `path` by the output rules (`OutputSet`: atomically).
    public func write(to path: String) throws {
        do { try OutputSet.write(fileData(), to: path) } catch {
            throw ReferenceFileError.cannotWrite(path: path, reason: error.description)
        }
    }

    /// The orbit file's bytes.
    public func fileData() -> Data {
        var out = Data()
        func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func i64(_ v: Int) { u64(UInt64(bitPattern: Int64(v))) }
        func f64(_ v: Double) { u64(v.bitPattern) }
        func text(_ s: String) { let b = Array(s.utf8); u64(UInt64(b.count)); out.append(contentsOf: b) }
        out.append(contentsOf: ReferenceOrbit.magic)
        withUnsafeBytes(of: UInt32(2).littleEndian) { out.append(contentsOf: $0) }
        i64(power)
        i64(precision.bits)
        i64(count)
        out.append(contentsOf: [escaped ? 1 : 0, reLow.isEmpty ? 0 : 1, juliaC == nil ? 0 : 1])
        text(point.re.decimalString())
        text(point.im.decimalString())
        if let juliaC {
            text(juliaC.re.decimalString())
            text(juliaC.im.decimalString())
        }
        re.forEach(f64)
        im.forEach(f64)
        if !reLow.isEmpty {
            reLow.forEach(f64)
            imLow.forEach(f64)
        }
        i64(tiny.count)
        for (index, z) in tiny.sorted(by: { $0.key < $1.key }) {
            i64(index)
            f64(z.re.significand)
            i64(z.re.exponent)
            f64(z.im.significand)
            i64(z.im.exponent)
        }
        i64(escapeGaps.count)
        for (index, gap) in escapeGaps.sorted(by: { $0.key < $1.key }) {
            i64(index)
            f64(gap.significand)
            i64(gap.exponent)
        }
        return out
    }

    /// Reads an orbit written by `write(to:)`.
    public static func read(from path: String) throws -> ReferenceOrbit {
        guard let data = FileManager.default.contents(atPath: path) else { throw ReferenceFileError.unreadable(path: path) }
        let bytes = [UInt8](data)
        var at = 0
        func need(_ n: Int) throws {
            guard n >= 0, at + n <= bytes.count else { throw ReferenceFileError.malformed(path: path) }
        }
        func u64() throws -> UInt64 {
            try need(8)
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(bytes[at + k]) << (8 * k) }
            at += 8
            return v
        }
        func i64() throws -> Int { Int(Int64(bitPattern: try u64())) }
        func f64() throws -> Double { Double(bitPattern: try u64()) }
        func byte() throws -> UInt8 { try need(1); at += 1; return bytes[at - 1] }
        func text() throws -> String {
            let n = try i64()
            try need(n)
            defer { at += n }
            return String(decoding: bytes[at..<at + n], as: UTF8.self)
        }
        try need(12)
        guard Array(bytes[0..<8]) == magic, bytes[8] == 1 || bytes[8] == 2, bytes[9] == 0, bytes[10] == 0, bytes[11] == 0 else {
            throw ReferenceFileError.malformed(path: path)
        }
        at = 12
        let power = try i64(), bits = try i64(), count = try i64()
        guard Family.powerRange.contains(power), bits >= 53, bits <= Precision.maximum.bits, count >= 1, count <= bytes.count / 16 else {
            throw ReferenceFileError.malformed(path: path)
        }
        let escaped = try byte() != 0, hasLow = try byte() != 0, isJulia = try byte() != 0
        let precision = Precision(bits: bits)
        func big(_ s: String) throws -> BigFloat {
            do { return try BigFloat(parsing: s, precision: precision) } catch { throw ReferenceFileError.malformed(path: path) }
        }
        let point = BigComplex(try big(try text()), try big(try text()))
        let juliaC = isJulia ? BigComplex(try big(try text()), try big(try text())) : nil
        func doubles() throws -> [Double] { try (0..<count).map { _ in try f64() } }
        let re = try doubles(), im = try doubles()
        let reLow = hasLow ? try doubles() : [], imLow = hasLow ? try doubles() : []
        var tiny: [Int: Complex<FloatExp>] = [:]
        for _ in 0..<(try i64()) {
            let index = try i64()
            let z = Complex(FloatExp(significand: try f64(), exponent: try i64()), FloatExp(significand: try f64(), exponent: try i64()))
            tiny[index] = z
        }
        var escapeGaps: [Int: FloatExp] = [:]
        if bytes[8] == 2 {
            for _ in 0..<(try i64()) {
                let index = try i64()
                escapeGaps[index] = FloatExp(significand: try f64(), exponent: try i64())
            }
        }
        guard at == bytes.count else { throw ReferenceFileError.malformed(path: path) }
        return ReferenceOrbit(point: point, power: power, juliaC: juliaC, precision: precision, re: re, im: im,
                              reLow: reLow, imLow: imLow, tiny: tiny, escapeGaps: escapeGaps, escaped: escaped)
    }
}

/// Problems with reference orbit files.
public enum ReferenceFileError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String)
    case malformed(path: String)
    case cannotWrite(path: String, reason: String)
    /// The file holds an orbit for another family, iteration limit or a lower precision.
    case mismatch(path: String)

    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read reference orbit '\(path)'"
        case .malformed(let path): "'\(path)' is not a Fathom reference orbit file"
        case .cannotWrite(_, let reason): "reference orbit: \(reason)"
        case .mismatch(let path): "reference orbit '\(path)' does not fit this view (family, iteration limit or precision)"
        }
    }
}
