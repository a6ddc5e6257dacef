import FractalNumerics

/// The reference orbit as a perturbation kernel reads it: decoded once in the pass's delta type
/// (`DecodedOrbit`, one load a step), or decoded as each pixel goes from the compressed orbit
/// itself (`StreamedOrbit`: no copy of the orbit is held, for passes whose pixels are few
/// against the orbit's length; Documentation/Perturbation.md, "Orbits streamed to the kernel").
/// A tile takes one cursor (`withCursor`) and each pixel a copy of it.
@usableFromInline
protocol KernelOrbit<Scalar>: Sendable {
    associatedtype Scalar: PerturbationDelta
    associatedtype Cursor: OrbitCursor where Cursor.Scalar == Scalar
    /// The orbit's values where it holds them decoded (a device's copy, the interior proof).
    var decoded: [Complex<Scalar>]? { get }
    /// The orbit where it streams from its compressed form (a device's copy).
    var streamed: StreamedOrbit<Scalar>? { get }
    /// Calls `body` with a cursor at Z(0), valid inside it.
    func withCursor<R>(_ body: (Cursor) -> R) -> R
}

/// Reads Z(m) for a pixel: m its reference index, which moves one step at a time, jumps forward
/// (LA and BLA steps) or back to 0 (rebasing).
@usableFromInline
protocol OrbitCursor {
    associatedtype Scalar: PerturbationDelta
    /// The orbit's last index.
    var last: Int { get }
    mutating func z(_ m: Int) -> Complex<Scalar>
}

/// The orbit decoded in the delta type.
@usableFromInline
struct DecodedOrbit<D: PerturbationDelta>: KernelOrbit {
    @usableFromInline let values: [Complex<D>]

    init(_ values: [Complex<D>]) { self.values = values }

    @usableFromInline var decoded: [Complex<D>]? { values }
    @usableFromInline var streamed: StreamedOrbit<D>? { nil }

    @inlinable
    func withCursor<R>(_ body: (DecodedCursor<D>) -> R) -> R {
        values.withUnsafeBufferPointer { body(DecodedCursor(base: $0)) }
    }
}

@usableFromInline
struct DecodedCursor<D: PerturbationDelta>: OrbitCursor {
    @usableFromInline let base: UnsafeBufferPointer<Complex<D>>

    @inlinable init(base: UnsafeBufferPointer<Complex<D>>) { self.base = base }

    @inlinable var last: Int { base.count - 1 }

    @inlinable @inline(__always)
    mutating func z(_ m: Int) -> Complex<D> { base[m] }
}

/// The orbit read from its compressed form (`CompressedOrbit`) as pixels go: a step decoded
/// from the one before it, a jump from the key before its target. The values are those of
/// `ReferenceOrbit.values(as:)`, bit for bit (the tiny table's where it holds a step).
@usableFromInline
struct StreamedOrbit<D: PerturbationDelta>: KernelOrbit {
    let orbit: CompressedOrbit
    /// The tiny table's steps in order, and their values in D.
    let tinySteps: [Int]
    let tinyValues: [Complex<D>]
    let wide: Bool

    init(_ reference: ReferenceOrbit) {
        orbit = reference.compressed
        let tiny = reference.tiny.sorted { $0.key < $1.key }
        tinySteps = tiny.map(\.key)
        tinyValues = tiny.map { Complex(D($0.value.re), D($0.value.im)) }
        wide = D.significandBits > 53 && reference.hasLowWords
    }

    @usableFromInline var decoded: [Complex<D>]? { nil }
    @usableFromInline var streamed: StreamedOrbit<D>? { self }

    @usableFromInline
    func withCursor<R>(_ body: (StreamedCursor<D>) -> R) -> R {
        orbit.bytes.withUnsafeBufferPointer { bytes in
            orbit.keys.withUnsafeBufferPointer { keys in
                orbit.keyNibbles.withUnsafeBufferPointer { keyNibbles in
                    tinySteps.withUnsafeBufferPointer { tinySteps in
                        tinyValues.withUnsafeBufferPointer { tinyValues in
                            // A pointer for empty buffers too (never read then).
                            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { one in
                                body(
                                    StreamedCursor(
                                        bytes: bytes.baseAddress ?? UnsafePointer(one.baseAddress!),
                                        nibbleEnd: orbit.nibbleCount, keys: keys.baseAddress!,
                                        keyNibbles: keyNibbles.baseAddress!, tinySteps: tinySteps,
                                        tinyValues: tinyValues, c: orbit.c, power: orbit.power,
                                        lowWords: orbit.hasLowWords, wide: wide, last: orbit.count - 1))
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A pixel's place in a streamed orbit: the step it holds, its stored Doubles and where its
/// successor's nibbles start. Pointers only: copied per pixel, no reference counting.
@usableFromInline
struct StreamedCursor<D: PerturbationDelta>: OrbitCursor {
    let bytes: UnsafePointer<UInt8>
    let nibbleEnd: Int
    let keys: UnsafePointer<Double>
    let keyNibbles: UnsafePointer<Int>
    let tinySteps: UnsafeBufferPointer<Int>
    let tinyValues: UnsafeBufferPointer<Complex<D>>
    let c: Complex<DoubleDouble>
    let power: Int
    let lowWords: Bool
    let wide: Bool
    @usableFromInline let last: Int
    /// The step held, Z(step) in D, its stored Doubles, the nibble after it and the first tiny
    /// entry past it.
    @usableFromInline var step: Int
    @usableFromInline var current: Complex<D>
    var raw: CompressedOrbit.Value = (0, 0, 0, 0)
    var nibble = 0
    var nextTiny = 0

    init(
        bytes: UnsafePointer<UInt8>, nibbleEnd: Int, keys: UnsafePointer<Double>, keyNibbles: UnsafePointer<Int>,
        tinySteps: UnsafeBufferPointer<Int>, tinyValues: UnsafeBufferPointer<Complex<D>>, c: Complex<DoubleDouble>,
        power: Int, lowWords: Bool, wide: Bool, last: Int
    ) {
        self.bytes = bytes
        self.nibbleEnd = nibbleEnd
        self.keys = keys
        self.keyNibbles = keyNibbles
        self.tinySteps = tinySteps
        self.tinyValues = tinyValues
        self.c = c
        self.power = power
        self.lowWords = lowWords
        self.wide = wide
        self.last = last
        step = -1
        current = .zero
        seek(0)
        settle()
    }

    @inlinable @inline(__always)
    mutating func z(_ m: Int) -> Complex<D> {
        if m != step { move(to: m) }
        return current
    }

    /// To step m: decoded from this one where m is the next (and not a key), else from the key
    /// at or before m.
    @usableFromInline @inline(never)
    mutating func move(to m: Int) {
        if m == step &+ 1 && m % CompressedOrbit.keyStride != 0 {
            advance()
        } else {
            seek(m)
        }
        settle()
    }

    /// `current` for the step reached: the tiny table's value where it holds the step.
    @inline(__always)
    mutating func settle() {
        if nextTiny < tinySteps.count && tinySteps[nextTiny] == step {
            current = tinyValues[nextTiny]
            nextTiny += 1
        } else {
            current = value()
        }
    }

    @inline(__always)
    mutating func advance() {
        var reader = UnsafeNibbleReader(bytes: bytes, end: nibbleEnd, nibble: nibble)
        guard let v = CompressedOrbit.next(after: raw, c: c, power: power, lowWords: lowWords, reader: &reader)
        else { preconditionFailure("step \(step + 1) is past the orbit's end") }
        raw = v
        nibble = reader.nibble
        step += 1
    }

    mutating func seek(_ m: Int) {
        precondition(m >= 0 && m <= last)
        let k = m / CompressedOrbit.keyStride
        let b = (lowWords ? 4 : 2) * k
        raw = (keys[b], keys[b + 1], lowWords ? keys[b + 2] : 0, lowWords ? keys[b + 3] : 0)
        nibble = keyNibbles[k]
        step = k * CompressedOrbit.keyStride
        while step < m { advance() }
        // The first tiny entry at or past m.
        var lo = 0, hi = tinySteps.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if tinySteps[mid] < m { lo = mid + 1 } else { hi = mid }
        }
        nextTiny = lo
    }

    /// Z(step) in D from its stored Doubles (as `ReferenceOrbit.value`, the tiny table aside).
    @inline(__always)
    func value() -> Complex<D> {
        if wide { return Complex(D(DoubleDouble(hi: raw.0, lo: raw.2)), D(DoubleDouble(hi: raw.1, lo: raw.3))) }
        return Complex(D(raw.0), D(raw.1))
    }
}

extension StreamedOrbit {
    /// The orbit as a device launch streams it, its arrays named `content(part)`.
    func launchStream(_ content: (DeviceContent.Part) -> DeviceContent?) -> PerturbationLaunch.Stream {
        PerturbationLaunch.Stream(
            bytes: LaunchArray(orbit.bytes, content: content(.streamBytes)), nibbleCount: orbit.nibbleCount,
            keys: LaunchArray(orbit.keys, content: content(.streamKeys)),
            keyNibbles: LaunchArray(orbit.keyNibbles, content: content(.streamKeyNibbles)),
            tinySteps: LaunchArray(tinySteps, content: content(.tinySteps)),
            tinyValues: LaunchArray(tinyValues, content: content(.tinyValues)),
            c: [orbit.c.re.hi, orbit.c.re.lo, orbit.c.im.hi, orbit.c.im.lo], power: orbit.power,
            lowWords: orbit.hasLowWords, wide: wide)
    }
}
