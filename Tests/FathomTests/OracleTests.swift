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

    /// The perturbation files, in both glitch modes. e113 and e318 take 14 s and ~10 minutes
    /// as whole images here, so they are checked on their sampled pixels only (the same
    /// render path, `RenderSettings.onlyPixels`); `fathom verify` renders them whole.
    @Test("deep files match in both glitch modes", arguments: [
        ("pub_c_e55", false), ("pub_g_julia_e20", false), ("pub_d_e113", true), ("pub_e_e318", true),
    ])
    func deep(name: String, sampledOnly: Bool) throws {
        let oracle = try OracleFile.read(path: try fixture(name))
        for mode in GlitchMode.allCases {
            let report = try Verifier.verify(oracle, perturbation: PerturbationSettings(glitchMode: mode), sampledOnly: sampledOnly)
            #expect(report.path == .perturbation)
            #expect(report.countMismatches == 0, "\(name) \(mode)")
            #expect(report.smoothMismatches == 0 || name == "pub_e_e318", "\(name) \(mode)")
            #expect(report.perturbation?.uncorrectedPixels == 0)
        }
    }

    /// The Multibrot file: escape counts exact with Double deltas; one hypersensitive pixel
    /// needs double-double deltas for its smooth value (Documentation/Perturbation.md).
    @Test("pub_f_multibrot3_e30: counts with Double deltas, everything with double-double")
    func multibrot() throws {
        let oracle = try OracleFile.read(path: try fixture("pub_f_multibrot3_e30"))
        let fast = try Verifier.verify(oracle)
        #expect(fast.countMismatches == 0)
        let exact = try Verifier.verify(oracle, perturbation: PerturbationSettings(deltaType: .doubleDouble))
        #expect(exact.outcome == .passed)
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
