import FractalNumerics

/// A reference orbit's stored values, compressed without loss: each step is predicted from the
/// step before (z^p + c in double-double where the orbit keeps low words, else in Double) and
/// only the difference from the stored value is kept, as a count of representable Doubles
/// between the two (the values' bit patterns, ordered), in variable-length nibbles.
///
/// The prediction starts from the exact stored value of the step before, not from a replay, so
/// its error is one step's rounding: for almost every step a few units in the last place, one
/// nibble (three bits and a continuation bit) for a high word and one or two for a low word.
/// Where the orbit passes near 0 the difference grows and takes more nibbles, never any loss.
/// Decoding gives back the stored Doubles bit for bit (tested), so a render from a compressed
/// orbit is the render from the plain one. Every `keyStride` steps the full values are kept as
/// a key, so a reader can start anywhere (`Cursor.init(orbit:at:)`). Entries below 2^-1000 stay
/// in the orbit's `tiny` table, outside this.
///
/// This is the approach of Zhuoran's reference compression (a low-precision replay of z^2 + c,
/// as Imagina and FractalShark store their orbits) made lossless: those store a waypoint where
/// a replay drifts past a bound, and their decompressed orbit is near the computed one, not it.
@usableFromInline package struct CompressedOrbit: Sendable {
    /// The number of steps, Z(0) ... Z(count - 1).
    @usableFromInline package let count: Int
    /// Whether each step keeps its low words too (the orbit can then be read as double-double).
    @usableFromInline package let hasLowWords: Bool
    /// The power p of the orbit's z^p + c, which the prediction steps with.
    @usableFromInline package let power: Int
    /// Steps between keys.
    @usableFromInline package static let keyStride = 128

    /// c in double-double (Mandelbrot: the reference point; Julia: the parameter).
    let c: Complex<DoubleDouble>
    /// Per key: re, im (and reLow, imLow) of step k * keyStride.
    let keys: [Double]
    /// Per key: the nibble index of the step after it.
    let keyNibbles: [Int]
    /// Two nibbles a byte, low nibble first.
    let bytes: [UInt8]
    /// The nibbles written (the last byte may hold only one).
    let nibbleCount: Int

    /// The bytes held: the nibbles, the keys and their offsets.
    @usableFromInline package var byteCount: Int { bytes.count + 8 * keys.count + 8 * keyNibbles.count }

    /// Compresses the stored Doubles of an orbit given as arrays (a version 3 file's):
    /// `reLow` and `imLow` empty, or as long as `re`.
    init(re: [Double], im: [Double], reLow: [Double], imLow: [Double], c: Complex<DoubleDouble>, power: Int) {
        var builder = Builder(c: c, power: power, lowWords: !reLow.isEmpty)
        for n in re.indices {
            builder.append((re[n], im[n], reLow.isEmpty ? 0 : reLow[n], imLow.isEmpty ? 0 : imLow[n]))
        }
        self = builder.orbit
    }

    private init(
        count: Int, hasLowWords: Bool, power: Int, c: Complex<DoubleDouble>, keys: [Double], keyNibbles: [Int],
        bytes: [UInt8], nibbleCount: Int
    ) {
        self.count = count
        self.hasLowWords = hasLowWords
        self.power = power
        self.c = c
        self.keys = keys
        self.keyNibbles = keyNibbles
        self.bytes = bytes
        self.nibbleCount = nibbleCount
    }

    /// Compresses an orbit step by step as it is computed, so its plain values are never held.
    struct Builder {
        let c: Complex<DoubleDouble>, power: Int, lowWords: Bool
        private var keys: [Double] = [], keyNibbles: [Int] = []
        private var writer = NibbleWriter()
        private var previous: Value = (0, 0, 0, 0)
        private(set) var count = 0

        init(c: Complex<DoubleDouble>, power: Int, lowWords: Bool) {
            self.c = c
            self.power = power
            self.lowWords = lowWords
        }

        /// Step `count`'s (re, im, reLow, imLow), the low words 0 without them.
        mutating func append(_ value: Value) {
            defer {
                previous = value
                count += 1
            }
            if count % CompressedOrbit.keyStride == 0 {
                keys.append(value.0)
                keys.append(value.1)
                if lowWords {
                    keys.append(value.2)
                    keys.append(value.3)
                }
                keyNibbles.append(writer.count)
                return
            }
            let guess = CompressedOrbit.predict(previous, c: c, power: power, lowWords: lowWords)
            writer.write(CompressedOrbit.ordered(value.0) &- CompressedOrbit.ordered(guess.0))
            writer.write(CompressedOrbit.ordered(value.1) &- CompressedOrbit.ordered(guess.1))
            if lowWords {
                // The low word the prediction implies, given the high word actually stored.
                let lr = CompressedOrbit.lowWord(guess, hi: value.0, re: true)
                let li = CompressedOrbit.lowWord(guess, hi: value.1, re: false)
                writer.write(CompressedOrbit.ordered(value.2) &- CompressedOrbit.ordered(lr))
                writer.write(CompressedOrbit.ordered(value.3) &- CompressedOrbit.ordered(li))
            }
        }

        /// The orbit appended so far.
        var orbit: CompressedOrbit {
            CompressedOrbit(
                count: count, hasLowWords: lowWords, power: power, c: c, keys: keys, keyNibbles: keyNibbles,
                bytes: writer.bytes, nibbleCount: writer.count)
        }
    }

    /// The first `n` steps (1 ... count): the same bytes as the orbit compressed from them,
    /// since each step's nibbles depend only on the steps before it.
    func prefix(_ n: Int) -> CompressedOrbit {
        precondition(n >= 1 && n <= count)
        guard n < count else { return self }
        let keyCount = (n + Self.keyStride - 1) / Self.keyStride
        // Where step n's nibbles would start: decode from the last key to step n - 1.
        var reader = NibbleReader(bytes: bytes, end: nibbleCount, at: keyNibbles[keyCount - 1])
        var value = Self.key(keys, keyCount - 1, lowWords: hasLowWords)
        for _ in (keyCount - 1) * Self.keyStride + 1..<n {
            guard let v = Self.next(after: value, c: c, power: power, lowWords: hasLowWords, reader: &reader) else {
                preconditionFailure("an orbit compressed here decodes")
            }
            value = v
        }
        let end = reader.nibble
        var cut = Array(bytes[..<((end + 1) / 2)])
        if end & 1 == 1 { cut[cut.count - 1] &= 15 }
        return CompressedOrbit(
            count: n, hasLowWords: hasLowWords, power: power, c: c,
            keys: Array(keys[..<((hasLowWords ? 4 : 2) * keyCount)]), keyNibbles: Array(keyNibbles[..<keyCount]),
            bytes: cut, nibbleCount: end)
    }

    /// Step n + 1 predicted from step n's stored values: z^p + c. With low words, the full
    /// double-double prediction (hi, lo of re, then of im); without, Doubles.
    @inline(__always)
    static func predict(
        _ v: (Double, Double, Double, Double), c: Complex<DoubleDouble>, power: Int, lowWords: Bool
    ) -> (Double, Double, Double, Double) {
        if lowWords {
            let x = Exact(v.0, v.2), y = Exact(v.1, v.3)
            var (a, b) = (x, y)
            for _ in 1..<power { (a, b) = (a * x - b * y, a * y + b * x) }
            let re = a + Exact(c.re.hi, c.re.lo), im = b + Exact(c.im.hi, c.im.lo)
            return (re.hi, im.hi, re.lo, im.lo)
        }
        let x = v.0, y = v.1
        var (a, b) = (x, y)
        for _ in 1..<power { (a, b) = (a * x - b * y, a * y + b * x) }
        return (a + c.re.hi, b + c.im.hi, 0, 0)
    }

    /// The low word a double-double prediction implies when the stored high word is `hi`
    /// (one Double off the prediction's own, now and then).
    @inline(__always)
    static func lowWord(_ guess: (Double, Double, Double, Double), hi: Double, re: Bool) -> Double {
        let full = re ? Exact(guess.0, guess.2) : Exact(guess.1, guess.3)
        return (full - Exact(hi, 0)).hi
    }

    /// A Double's bit pattern as an integer in the Doubles' order (-0 just below +0), so the
    /// difference of two is the number of Doubles between them.
    @inline(__always)
    static func ordered(_ d: Double) -> Int64 {
        let b = Int64(bitPattern: d.bitPattern)
        return b >= 0 ? b : ~(b & Int64.max)
    }

    @inline(__always)
    static func fromOrdered(_ o: Int64) -> Double {
        Double(bitPattern: UInt64(bitPattern: o >= 0 ? o : Int64.min | ~o))
    }

    /// (re, im, reLow, imLow) of step n.
    typealias Value = (Double, Double, Double, Double)

    /// Key `k`'s values (the low words 0 without them).
    @inline(__always)
    static func key(_ keys: [Double], _ k: Int, lowWords: Bool) -> Value {
        let b = (lowWords ? 4 : 2) * k
        return (keys[b], keys[b + 1], lowWords ? keys[b + 2] : 0, lowWords ? keys[b + 3] : 0)
    }

    /// The step after `value`, its differences read from `reader`; nil where they run past it.
    @inline(__always)
    static func next<R: NibbleSource>(
        after value: Value, c: Complex<DoubleDouble>, power: Int, lowWords: Bool, reader: inout R
    ) -> Value? {
        let guess = predict(value, c: c, power: power, lowWords: lowWords)
        guard let dr = reader.read(), let di = reader.read() else { return nil }
        let x = fromOrdered(ordered(guess.0) &+ dr), y = fromOrdered(ordered(guess.1) &+ di)
        guard lowWords else { return (x, y, 0, 0) }
        guard let lr = reader.read(), let li = reader.read() else { return nil }
        return (
            x, y, fromOrdered(ordered(lowWord(guess, hi: x, re: true)) &+ lr),
            fromOrdered(ordered(lowWord(guess, hi: y, re: false)) &+ li)
        )
    }

    /// The parts a file holds (`parts`), unchecked: `init(checked:)` is the only safe reader
    /// of parts from outside.
    struct Parts {
        var count: Int, hasLowWords: Bool, power: Int
        var c: Complex<DoubleDouble>, keys: [Double], keyNibbles: [Int], nibbleCount: Int, bytes: [UInt8]
    }

    var parts: Parts {
        Parts(
            count: count, hasLowWords: hasLowWords, power: power, c: c, keys: keys, keyNibbles: keyNibbles,
            nibbleCount: nibbleCount, bytes: bytes)
    }

    /// The orbit of parts read from a file, or the reason they are not a compressed orbit:
    /// every read bounded by the bytes, every varint at most 22 nibbles, every key where the
    /// decoding before it ends, every value finite, and nothing left over.
    init(checked p: Parts) throws(CheckFailure) {
        let lanes = p.hasLowWords ? 4 : 2
        guard p.count >= 1 else { throw CheckFailure(reason: "it has no steps") }
        let keyCount = p.count / Self.keyStride + (p.count % Self.keyStride == 0 ? 0 : 1)
        guard p.keys.count == lanes * keyCount, p.keyNibbles.count == keyCount,
            p.nibbleCount >= 0, p.nibbleCount <= 2 * p.bytes.count, p.nibbleCount + 1 >= 2 * p.bytes.count
        else { throw CheckFailure(reason: "its key and nibble counts do not fit its length") }
        if let problem = Self.walk(p, { _, _ in true }) { throw problem }
        self.init(
            count: p.count, hasLowWords: p.hasLowWords, power: p.power, c: p.c, keys: p.keys,
            keyNibbles: p.keyNibbles, bytes: p.bytes, nibbleCount: p.nibbleCount)
    }

    /// Decodes `p` from step 0, checking as `init(checked:)` says, handing each step to `body`
    /// until it returns false; the reason where the parts are not an orbit (their counts
    /// already checked).
    @inline(__always)
    private static func walk(_ p: Parts, _ body: (Int, Value) -> Bool) -> CheckFailure? {
        var reader = NibbleReader(bytes: p.bytes, end: p.nibbleCount)
        var value: Value = (0, 0, 0, 0)
        for n in 0..<p.count {
            if n % keyStride == 0 {
                let k = n / keyStride
                guard p.keyNibbles[k] == reader.nibble else {
                    return CheckFailure(reason: "key \(k) is not where the steps before it end")
                }
                value = key(p.keys, k, lowWords: p.hasLowWords)
            } else {
                guard let v = next(after: value, c: p.c, power: p.power, lowWords: p.hasLowWords, reader: &reader)
                else { return CheckFailure(reason: "step \(n) runs past its bytes") }
                value = v
            }
            guard value.0.isFinite, value.1.isFinite, value.2.isFinite, value.3.isFinite else {
                return CheckFailure(reason: "step \(n) is not finite")
            }
            if !body(n, value) { return nil }
        }
        guard reader.nibble == p.nibbleCount else { return CheckFailure(reason: "nibbles after its last step") }
        return nil
    }

    struct CheckFailure: Error {
        let reason: String
    }

    /// Each step n = 0, 1, ... in order with its (re, im, reLow, imLow), the low words 0
    /// without them, until `body` returns false.
    @inline(__always)
    @usableFromInline package func forEachStep(_ body: (Int, (Double, Double, Double, Double)) -> Bool) {
        if let problem = Self.walk(parts, body) {
            preconditionFailure("an orbit compressed here decodes: \(problem.reason)")
        }
    }

    /// All steps' values, decoded: (re, im, reLow, imLow); the low words empty without them.
    @usableFromInline package func decoded() -> (re: [Double], im: [Double], reLow: [Double], imLow: [Double]) {
        var re = [Double](), im = [Double](), reLow = [Double](), imLow = [Double]()
        re.reserveCapacity(count)
        im.reserveCapacity(count)
        if hasLowWords {
            reLow.reserveCapacity(count)
            imLow.reserveCapacity(count)
        }
        forEachStep { _, v in
            re.append(v.0)
            im.append(v.1)
            if hasLowWords {
                reLow.append(v.2)
                imLow.append(v.3)
            }
            return true
        }
        return (re, im, reLow, imLow)
    }

    /// A reader of the orbit from any step on, one step at a time.
    @usableFromInline package struct Cursor {
        let orbit: CompressedOrbit
        /// The step `value` holds.
        @usableFromInline package private(set) var step: Int
        /// (re, im, reLow, imLow) of `step` (the low words 0 without them).
        @usableFromInline package private(set) var value: (Double, Double, Double, Double)
        private var reader: NibbleReader

        /// At step `n` (0 ..< count): from the key before it, decoding forward at most
        /// `keyStride - 1` steps.
        @usableFromInline package init(orbit: CompressedOrbit, at n: Int) {
            precondition(n >= 0 && n < orbit.count)
            self.orbit = orbit
            let k = n / CompressedOrbit.keyStride
            value = CompressedOrbit.key(orbit.keys, k, lowWords: orbit.hasLowWords)
            step = k * CompressedOrbit.keyStride
            reader = NibbleReader(bytes: orbit.bytes, end: orbit.nibbleCount, at: orbit.keyNibbles[k])
            while step < n { advance() }
        }

        /// To the next step (step + 1 < count).
        @usableFromInline package mutating func advance() {
            step += 1
            let o = orbit
            if step % CompressedOrbit.keyStride == 0 {
                self = Cursor(orbit: o, at: step)
                return
            }
            guard
                let v = CompressedOrbit.next(
                    after: value, c: o.c, power: o.power, lowWords: o.hasLowWords, reader: &reader)
            else { preconditionFailure("step \(step) is past the orbit's \(o.count)") }
            value = v
        }
    }
}

/// A reader of zigzag varints of nibbles (three bits each, the fourth set where more follow):
/// nil where one runs past the end or is longer than 22 nibbles (64 bits).
protocol NibbleSource {
    mutating func read() -> Int64?
}

extension NibbleSource {
    /// One varint from `nibble` (advanced past it) of `byte(i)` up to nibble `end`.
    @inline(__always)
    static func varint(_ nibble: inout Int, end: Int, _ byte: (Int) -> UInt8) -> Int64? {
        var z: UInt64 = 0, shift: UInt64 = 0, length = 0
        while true {
            guard nibble < end, length < 22 else { return nil }
            let b = byte(nibble >> 1)
            let q = nibble & 1 == 0 ? b & 15 : b >> 4
            nibble += 1
            length += 1
            z |= UInt64(q & 7) << shift
            shift += 3
            if q & 8 == 0 { break }
        }
        return Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1)
    }
}

/// Reads the varints of `bytes` up to nibble `end` (`NibbleSource`).
struct NibbleReader: NibbleSource {
    let bytes: [UInt8]
    let end: Int
    private(set) var nibble = 0

    init(bytes: [UInt8], end: Int, at nibble: Int = 0) {
        self.bytes = bytes
        self.end = end
        self.nibble = nibble
    }

    @inline(__always)
    mutating func read() -> Int64? {
        let bytes = bytes
        return Self.varint(&nibble, end: end) { bytes[$0] }
    }
}

/// The same reader over bytes held elsewhere (a kernel's tile, without reference counting).
struct UnsafeNibbleReader: NibbleSource {
    let bytes: UnsafePointer<UInt8>
    let end: Int
    var nibble: Int

    @inline(__always)
    mutating func read() -> Int64? {
        let bytes = bytes
        return Self.varint(&nibble, end: end) { bytes[$0] }
    }
}

/// Zigzag varints in nibbles (three bits and a continuation bit each), two a byte.
struct NibbleWriter {
    var bytes: [UInt8] = []
    var count = 0

    mutating func write(_ value: Int64) {
        var z = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        repeat {
            var q = UInt8(z & 7)
            z >>= 3
            if z != 0 { q |= 8 }
            if count & 1 == 0 { bytes.append(q) } else { bytes[bytes.count - 1] |= q << 4 }
            count += 1
        } while z != 0
    }
}

/// The prediction's double-double arithmetic, fixed for the format: IEEE additions and
/// products and one fused multiply-add per product (`addingProduct`, an fma on every
/// platform), so every build predicts, and so decodes, the same Doubles (`DoubleDouble`'s own
/// product is Dekker's on some builds and an fma on others, which differ where the low part
/// underflows).
private struct Exact {
    var hi: Double, lo: Double
    @inline(__always) init(_ hi: Double, _ lo: Double) {
        self.hi = hi
        self.lo = lo
    }
    @inline(__always) static func + (a: Exact, b: Exact) -> Exact {
        let s = a.hi + b.hi, v = s - a.hi
        let e = (a.hi - (s - v)) + (b.hi - v) + a.lo + b.lo
        let h = s + e
        return Exact(h, e - (h - s))
    }
    @inline(__always) static prefix func - (a: Exact) -> Exact { Exact(-a.hi, -a.lo) }
    @inline(__always) static func - (a: Exact, b: Exact) -> Exact { a + (-b) }
    @inline(__always) static func * (a: Exact, b: Exact) -> Exact {
        let p = a.hi * b.hi
        let e = (-p).addingProduct(a.hi, b.hi) + (a.hi * b.lo + a.lo * b.hi)
        let h = p + e
        return Exact(h, e - (h - p))
    }
}

extension CompressedOrbit: Equatable {
    /// The same steps: the same bytes, keys (bit for bit) and parameters.
    @usableFromInline package static func == (a: CompressedOrbit, b: CompressedOrbit) -> Bool {
        a.count == b.count && a.hasLowWords == b.hasLowWords && a.power == b.power && a.nibbleCount == b.nibbleCount
            && a.c.re.hi.bitPattern == b.c.re.hi.bitPattern && a.c.re.lo.bitPattern == b.c.re.lo.bitPattern
            && a.c.im.hi.bitPattern == b.c.im.hi.bitPattern && a.c.im.lo.bitPattern == b.c.im.lo.bitPattern
            && a.bytes == b.bytes && a.keyNibbles == b.keyNibbles
            && a.keys.elementsEqual(b.keys) { $0.bitPattern == $1.bitPattern }
    }
}
