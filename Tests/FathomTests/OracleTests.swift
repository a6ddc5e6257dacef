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
        ("pub_c_e55", false), ("pub_f_multibrot3_e30", false), ("pub_g_julia_e20", false), ("pub_d_e113", true), ("pub_e_e318", true),
    ])
    func deep(name: String, sampledOnly: Bool) throws {
        let oracle = try OracleFile.read(path: try fixture(name))
        for mode in GlitchMode.allCases {
            let report = try Verifier.verify(oracle, perturbation: PerturbationSettings(glitchMode: mode), sampledOnly: sampledOnly)
            #expect(report.path == .perturbation)
            #expect(report.outcome == .passed, "\(name) \(mode)")
            #expect(report.countMismatches == 0, "\(name) \(mode)")
            #expect(report.smoothMismatches == 0, "\(name) \(mode)")
            #expect(report.perturbation?.uncorrectedPixels == 0)
            if name == "pub_e_e318" {
                // FloatExp deltas: the sensitive pixels go straight to the MPFR pass.
                #expect((report.perturbation?.reiteratedPixels ?? 0) > 0)
            }
        }
    }

    /// Without the second pass for sensitive pixels, Double deltas miss one smooth value of the
    /// Multibrot file by 5.6e-4 (its counts stay exact); double-double deltas need no help.
    @Test("pub_f_multibrot3_e30: the sensitive-pixel pass is what makes Double deltas exact")
    func sensitivePixels() throws {
        let oracle = try OracleFile.read(path: try fixture("pub_f_multibrot3_e30"))
        var plain = PerturbationSettings()
        plain.exactSensitivePixels = false
        let fast = try Verifier.verify(oracle, perturbation: plain)
        #expect(fast.countMismatches == 0)
        #expect(fast.smoothMismatches == 1)
        let checked = try Verifier.verify(oracle)
        #expect(checked.outcome == .passed)
        #expect((checked.perturbation?.doubleDoublePixels ?? 0) > 0)
        var doubleDouble = PerturbationSettings(deltaType: .doubleDouble)
        doubleDouble.exactSensitivePixels = false
        #expect(try Verifier.verify(oracle, perturbation: doubleDouble).outcome == .passed)
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
