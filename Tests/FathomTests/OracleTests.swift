import Fathom
import Foundation
import Testing

func fixture(_ name: String) throws -> String {
    try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "json")).path
}

@Suite("Oracle data")
struct OracleTests {
    /// The shallow files pass through the normal render path: n2 and nBig exact on every
    /// stable pixel, smooth within 1e-6 where the oracle does not mark it unstable.
    @Test("the renderer matches the oracle", arguments: ["pub_a_seahorse_shallow", "pub_b_e14"])
    func passes(name: String) throws {
        let oracle = try OracleFile.read(path: try fixture(name))
        let report = try Verifier.verify(oracle)
        #expect(report.outcome == .passed)
        #expect(report.rows.count == 101)
        #expect(report.checked == 101)
        #expect(report.countMismatches == 0)
        #expect(report.maxSmoothError < 1e-9)
    }

    /// Deeper views need more bits below the pixel spacing than double-double carries: verify
    /// reports them as not verified, neither passing nor crashing (perturbation comes later).
    @Test("views beyond double-double are reported, not passed", arguments: [
        "pub_c_e55", "pub_d_e113", "pub_e_e318", "pub_f_multibrot3_e30", "pub_g_julia_e20",
    ])
    func unsupported(name: String) throws {
        let report = try Verifier.verify(try OracleFile.read(path: try fixture(name)))
        guard case .unsupported(let why) = report.outcome else {
            Issue.record("expected 'not verified', got \(report.outcome)")
            return
        }
        #expect(why.contains("needs perturbation") || why.contains("perturbation"))
    }

    @Test("the sampled pixels are the oracle README's SplitMix64 sequence")
    func sampling() throws {
        let oracle = try OracleFile.read(path: try fixture("pub_b_e14"))
        var state: UInt64 = 20241129
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var pixels = [(0, 0), (639, 0), (0, 359), (639, 359), (320, 180)]
        while pixels.count < 101 {
            let x = Int(next() % 640), y = Int(next() % 360)
            if !pixels.contains(where: { $0 == (x, y) }) { pixels.append((x, y)) }
        }
        #expect(oracle.pixels.map { [$0.x, $0.y] } == pixels.map { [$0.0, $0.1] })
    }
}
