/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014): a small deterministic generator, for reproducible tile orders, samples and
/// tests (the oracle README samples its pixels with it).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's state: advanced by a fixed odd constant on each call to `next()`.
    public var state: UInt64

    /// Creates a generator whose sequence is determined by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 pseudorandom bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A Double uniform in [0, 1) from the top 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
