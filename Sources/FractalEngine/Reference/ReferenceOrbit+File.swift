import ArbitraryPrecision
import Foundation
import FractalNumerics

/// Reference orbit files: a later render, or another machine, can reuse an orbit instead of
/// recomputing it. Little-endian binary, version 4:
///
///     "FATHOMRO" | version u32 = 4 | power i64 | precision bits i64 | count i64 |
///     escaped u8 | has low words u8 | is Julia u8 |
///     point re, point im, [julia re, julia im]: each a u64 length + UTF-8 decimal string |
///     the values, compressed (`CompressedOrbit`): key stride i64 = 128 |
///     c re hi, lo, c im hi, lo f64 (the prediction's c) | keys[ceil(count / 128) * lanes] f64
///     (lanes: re, im, [reLow, imLow]) | key nibble offsets[ceil(count / 128)] i64 |
///     nibble count i64 | bytes[ceil(nibbles / 2)] u8 |
///     tiny count i64 | per entry: index i64, re significand f64, re exponent i64, im ... |
///     gap count i64 | per entry: index i64, significand f64, exponent i64 |
///     checksum u64: 64-bit FNV-1a of every byte before it
///
/// A truncated or altered file is refused with a one-line reason, never read into a wrong
/// image: the checksum is checked first, then every count and length against the bytes left
/// (before anything is allocated), every header field against its range and every value for
/// being finite; the compressed values are decoded once with every read bounded
/// (`CompressedOrbit.init(checked:)`), and the orbit is held in that form. Version 3 (the same, with the values as plain f64 arrays:
/// re[count], im[count], [reLow[count], imLow[count]]) is still read. Versions 1 and 2 (no
/// checksum) are refused: render again with `--save-reference` (Documentation/Reliability.md).
extension ReferenceOrbit {
    static let magic = Array("FATHOMRO".utf8)
    /// The version `write(to:)` writes; `read(from:)` reads it and version 3.
    @usableFromInline package static let fileVersion: UInt32 = 4
    /// Exponents of FloatExp entries (tiny values, escape gaps) beyond this are refused: MPFR's
    /// default exponent range is +-(2^30 - 1), so no orbit has them, and FloatExp arithmetic
    /// on them could overflow.
    static let maximumFileExponent = 1 << 40
    /// The highest precision a file may give: 2^22 bits (4.2 million), above any orbit a view
    /// within `Location`'s limits takes (the smallest radius, 1e-1000000, takes about 3.3
    /// million bits; a Julia view's precision follows its at most 1.1 million digits: 3.7
    /// million). Precision.maximum (2^28) let a damaged header make reading its point, and
    /// every use of it, take seconds to minutes (found by the fuzzer, Reliability.md).
    @usableFromInline package static let maximumFileBits = 1 << 22

    /// The checksum ending a version 3 file: 64-bit FNV-1a (Fowler, Noll and Vo; offset basis
    /// 0xcbf29ce484222325, prime 0x100000001b3, as in draft-eastlake-fnv) of `bytes`.
    ///
    /// Each step `h = (h ^ byte) * prime` is a bijection of h for a fixed byte (the prime is
    /// odd), so any one altered byte changes the result; other damage goes unnoticed with
    /// probability about 2^-64.
    @usableFromInline package static func fileChecksum<C: Collection<UInt8>>(_ bytes: C) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        let fast: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            for b in buffer { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        }
        if fast == nil {
            for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        }
        return h
    }

    /// Writes the orbit to `path` by the output rules (`OutputSet`: atomically).
    @usableFromInline package func write(to path: String) throws {
        do { try OutputSet.write(fileData(), to: path) } catch {
            throw ReferenceFileError.cannotWrite(path: path, reason: error.description)
        }
    }

    /// The orbit file's bytes.
    @usableFromInline package func fileData() -> Data {
        var out = Data()
        let packed = compressed.parts
        out.reserveCapacity(160 + packed.bytes.count + packed.keys.count * 16 + tiny.count * 40 + escapeGaps.count * 24)
        func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func i64(_ v: Int) { u64(UInt64(bitPattern: Int64(v))) }
        func f64(_ v: Double) { u64(v.bitPattern) }
        func text(_ s: String) { let b = Array(s.utf8); u64(UInt64(b.count)); out.append(contentsOf: b) }
        out.append(contentsOf: ReferenceOrbit.magic)
        withUnsafeBytes(of: ReferenceOrbit.fileVersion.littleEndian) { out.append(contentsOf: $0) }
        i64(power)
        i64(precision.bits)
        i64(count)
        out.append(contentsOf: [escaped ? 1 : 0, hasLowWords ? 1 : 0, juliaC == nil ? 0 : 1])
        text(point.re.decimalString())
        text(point.im.decimalString())
        if let juliaC {
            text(juliaC.re.decimalString())
            text(juliaC.im.decimalString())
        }
        i64(CompressedOrbit.keyStride)
        [packed.c.re.hi, packed.c.re.lo, packed.c.im.hi, packed.c.im.lo].forEach(f64)
        packed.keys.forEach(f64)
        packed.keyNibbles.forEach(i64)
        i64(packed.nibbleCount)
        out.append(contentsOf: packed.bytes)
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
        u64(ReferenceOrbit.fileChecksum(out))
        return out
    }

    /// Reads an orbit written by `write(to:)`.
    @usableFromInline package static func read(from path: String) throws(ReferenceFileError) -> ReferenceOrbit {
        // The largest orbit file: 2^31 steps of compressed values is far past any view's.
        let data: Data
        do { data = try InputFile.read(path, maximumSize: Int.max) } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        return try decode([UInt8](data), path: path)
    }

    /// The orbit in a file's bytes (`read(from:)` without the reading); `path` names the file
    /// in errors.
    ///
    /// Edge cases: every problem is `ReferenceFileError.malformed` with a one-line reason:
    /// another magic, an older or newer version, a checksum that does not match (truncated or
    /// altered), a field out of range, a count larger than the bytes left, a value that is not
    /// finite, bytes left over.
    @usableFromInline package static func decode(_ bytes: [UInt8], path: String) throws(ReferenceFileError)
        -> ReferenceOrbit
    {
        func fail(_ reason: String) -> ReferenceFileError { .malformed(path: path, reason: reason) }
        guard bytes.count >= 8, Array(bytes[0..<8]) == magic else { throw fail("it does not start with FATHOMRO") }
        guard bytes.count >= 12 else { throw fail("truncated after its first 8 bytes") }
        let version = UInt32(bytes[8]) | UInt32(bytes[9]) << 8 | UInt32(bytes[10]) << 16 | UInt32(bytes[11]) << 24
        guard version == fileVersion || version == 3 else {
            if version == 1 || version == 2 {
                throw fail(
                    "version \(version) file, written by an older Fathom: save it again (PerturbationSettings.saveReference)"
                )
            }
            throw fail("version \(version), but this Fathom reads versions 3 and \(fileVersion) only")
        }
        guard bytes.count >= 12 + 8 else { throw fail("truncated (no checksum)") }
        let end = bytes.count - 8
        var stored: UInt64 = 0
        for k in 0..<8 { stored |= UInt64(bytes[end + k]) << (8 * k) }
        guard stored == fileChecksum(bytes[0..<end]) else {
            throw fail("checksum mismatch: the file is truncated or altered")
        }
        var file = OrbitFileCursor(bytes: bytes, at: 12, end: end)
        func take<T>(_ what: String, _ read: (inout OrbitFileCursor) -> T?) throws(ReferenceFileError) -> T {
            guard let v = read(&file) else { throw fail("truncated in \(what)") }
            return v
        }

        let power = try take("the header") { $0.int() }
        let bits = try take("the header") { $0.int() }
        let count = try take("the header") { $0.int() }
        let flags = Array(try take("the header") { $0.bytes(3) })
        guard Family.powerRange.contains(power) else { throw fail("power \(power) is outside \(Family.powerRange)") }
        guard bits >= 53 && bits <= maximumFileBits else {
            throw fail("precision \(bits) bits is outside 53...\(maximumFileBits)")
        }
        guard flags.allSatisfy({ $0 <= 1 }) else { throw fail("a flag byte is not 0 or 1") }
        let escaped = flags[0] == 1, hasLow = flags[1] == 1, isJulia = flags[2] == 1
        let precision = Precision(bits: bits)
        func number(_ what: String) throws(ReferenceFileError) -> BigFloat {
            let length = try take(what) { $0.int() }
            guard length >= 1 && length <= file.left else {
                throw fail("\(what): length \(length) is larger than the file")
            }
            let text = String(decoding: try take(what) { $0.bytes(length) }, as: UTF8.self)
            do { return try BigFloat(parsing: text, precision: precision) } catch {
                throw fail("\(what) is not a decimal number")  // not quoted: it may hold any bytes
            }
        }
        let point = BigComplex(try number("point.re"), try number("point.im"))
        let juliaC = isJulia ? BigComplex(try number("juliaC.re"), try number("juliaC.im")) : nil

        func doubles(_ what: String, _ n: Int) throws(ReferenceFileError) -> [Double] {
            let values = try take(what) { $0.doubles(n) }
            guard values.allSatisfy(\.isFinite) else { throw fail("\(what): a value is not finite") }
            return values
        }
        let compressed: CompressedOrbit
        if version == 3 {
            // Each of the count entries takes 16 bytes (32 with low words): checked before allocating.
            guard count >= 1 && count <= file.left / (hasLow ? 32 : 16) else {
                throw fail("orbit length \(count) does not fit the \(file.left) bytes left")
            }
            let re = try doubles("re", count), im = try doubles("im", count)
            let reLow = hasLow ? try doubles("reLow", count) : [], imLow = hasLow ? try doubles("imLow", count) : []
            let c = juliaC ?? point
            compressed = CompressedOrbit(
                re: re, im: im, reLow: reLow, imLow: imLow,
                c: Complex(c.re.doubleDoubleValue, c.im.doubleDoubleValue), power: power)
        } else {
            let stride = try take("the compressed values") { $0.int() }
            guard stride == CompressedOrbit.keyStride else {
                throw fail("key stride \(stride), but this Fathom reads \(CompressedOrbit.keyStride) only")
            }
            // Each step takes at least two nibbles (four with low words): checked before allocating.
            guard count >= 1 && count <= 2 * file.left else {
                throw fail("orbit length \(count) does not fit the \(file.left) bytes left")
            }
            let cParts = try doubles("c", 4)
            let keyCount = (count + stride - 1) / stride, lanes = hasLow ? 4 : 2
            let keys = try doubles("keys", lanes * keyCount)
            guard keyCount <= file.left / 8 else { throw fail("truncated in the key offsets") }
            var keyNibbles: [Int] = []
            keyNibbles.reserveCapacity(keyCount)
            for _ in 0..<keyCount { keyNibbles.append(try take("the key offsets") { $0.int() }) }
            let nibbles = try take("the compressed values") { $0.int() }
            guard nibbles >= 0 && nibbles <= 2 * file.left else {
                throw fail("\(nibbles) nibbles do not fit the \(file.left) bytes left")
            }
            // Every step between keys takes a nibble or more a lane: checked before decoding.
            guard (count - keyCount) * lanes <= nibbles else {
                throw fail("\(nibbles) nibbles are too few for \(count) steps")
            }
            let packed = Array(try take("the compressed values") { $0.bytes((nibbles + 1) / 2) })
            let parts = CompressedOrbit.Parts(
                count: count, hasLowWords: hasLow, power: power,
                c: Complex(DoubleDouble(hi: cParts[0], lo: cParts[1]), DoubleDouble(hi: cParts[2], lo: cParts[3])),
                keys: keys, keyNibbles: keyNibbles, nibbleCount: nibbles, bytes: packed)
            do { compressed = try CompressedOrbit(checked: parts) } catch {
                throw fail("its compressed values are damaged: \(error.reason)")
            }
        }

        // The sparse tables: indices within the orbit, strictly increasing (as written).
        func floatExp(_ what: String) throws(ReferenceFileError) -> FloatExp {
            let m = try take(what) { $0.double() }, e = try take(what) { $0.int() }
            if m == 0 { return FloatExp(significand: 0, exponent: 0) }
            guard m.isFinite, e >= -maximumFileExponent && e <= maximumFileExponent else {
                throw fail("\(what): \(m) * 2^\(e) is out of range")
            }
            return FloatExp(significand: m, exponent: e)
        }
        func table<V>(_ what: String, entryBytes: Int, _ value: () throws(ReferenceFileError) -> V)
            throws(ReferenceFileError) -> [Int: V]
        {
            let n = try take(what) { $0.int() }
            guard n >= 0 && n <= count && n <= file.left / entryBytes else {
                throw fail("\(what): \(n) entries do not fit the orbit or the bytes left")
            }
            var entries: [Int: V] = [:]
            entries.reserveCapacity(n)
            var last = -1
            for _ in 0..<n {
                let index = try take(what) { $0.int() }
                guard index > last && index < count else {
                    throw fail("\(what): index \(index) is out of order or past the orbit")
                }
                last = index
                entries[index] = try value()
            }
            return entries
        }
        let tiny = try table("tiny values", entryBytes: 40) { () throws(ReferenceFileError) in
            Complex(try floatExp("tiny values"), try floatExp("tiny values"))
        }
        let escapeGaps = try table("escape gaps", entryBytes: 24) { () throws(ReferenceFileError) in
            try floatExp("escape gaps")
        }
        guard file.left == 0 else { throw fail("\(file.left) bytes after the orbit") }
        return ReferenceOrbit(
            point: point, power: power, juliaC: juliaC, precision: precision, compressed: compressed,
            tiny: tiny, escapeGaps: escapeGaps, escaped: escaped)
    }
}

/// Reads little-endian fields from `bytes[at..<end]`; each read returns nil, and moves nothing,
/// when too few bytes are left.
struct OrbitFileCursor {
    let bytes: [UInt8]
    var at: Int
    let end: Int

    var left: Int { end - at }

    mutating func bytes(_ n: Int) -> ArraySlice<UInt8>? {
        guard n >= 0 && n <= left else { return nil }
        defer { at += n }
        return bytes[at..<at + n]
    }

    mutating func u64() -> UInt64? {
        guard let b = bytes(8) else { return nil }
        var v: UInt64 = 0
        for k in 0..<8 { v |= UInt64(b[b.startIndex + k]) << (8 * k) }
        return v
    }

    mutating func int() -> Int? { u64().map { Int(Int64(bitPattern: $0)) } }

    mutating func double() -> Double? { u64().map { Double(bitPattern: $0) } }

    /// `n` doubles (`n` checked against the bytes left before anything is allocated).
    mutating func doubles(_ n: Int) -> [Double]? {
        guard n >= 0 && n <= left / 8 else { return nil }
        let start = at
        at += 8 * n
        return bytes.withUnsafeBytes { raw in
            (0..<n).map { k in
                Double(
                    bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start + 8 * k, as: UInt64.self)))
            }
        }
    }
}

/// Problems with reference orbit files.
public enum ReferenceFileError: Error, Equatable, CustomStringConvertible {
    /// The file at `path` could not be read: `reason` says why (no such file, a folder, a FIFO).
    case unreadable(path: String, reason: String)
    /// Not a version 3 or 4 orbit file, or a damaged one; `reason` is one line.
    case malformed(path: String, reason: String)
    /// The file at `path` could not be written; `reason` is one line.
    case cannotWrite(path: String, reason: String)
    /// The file holds an orbit for another family, iteration limit or a lower precision.
    case mismatch(path: String)
    /// The file's orbit lies `pixels` pixels from the view's center, more than the `maximum`
    /// at which deltas still resolve the view's pixels.
    case tooFar(path: String, pixels: Double, maximum: Double)

    /// A one-line message for the user, naming the file where it helps.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read reference orbit '\(path)': \(reason)"
        case .malformed(let path, let reason): "'\(path)' is not a valid Fathom reference orbit file: \(reason)"
        case .cannotWrite(_, let reason): "reference orbit: \(reason)"
        case .tooFar(let path, let pixels, let maximum):
            "reference orbit '\(path)' lies \(pixels.isFinite ? String(format: "%.3g", pixels) : "infinitely many") pixels "
                + "from the view's center, more than \(String(format: "%.0f", maximum)): its deltas could not tell the "
                + "pixels apart; save a reference orbit of this view (PerturbationSettings.saveReference) or render without one"
        case .mismatch(let path):
            "reference orbit '\(path)' does not fit this view (family, iteration limit or precision)"
        }
    }
}

extension ReferenceFileError: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
