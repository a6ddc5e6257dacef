extension LocationFile {
    /// Engine settings a location file can carry, in the engine's own types; each field is
    /// optional (nil: the engine's default) and the command line overrides each. In JSON each
    /// value is spelled as the engine's raw value (`"double-double"`, `"floatexp"`); a value
    /// the engine does not have is refused naming the field, the value and the accepted ones
    /// (`engine.delta: 'foo' is not one of double, floatexp, double-double`).
    public struct EngineSettings: Sendable, Equatable {
        /// The arithmetic forced (nil: chosen by the view's depth).
        public var path: ArithmeticPath?
        /// How perturbation handles glitches (nil: rebase).
        public var glitches: GlitchMode?
        /// Where the first reference goes (nil: the default, `.automatic`).
        public var reference: ReferencePlacement?
        /// The perturbation delta type forced (nil: by the pixel spacing).
        public var delta: DeltaType?
        /// Whether perturbation skips iterations with the approximation tables (`approximation`);
        /// false: plain perturbation (nil: the engine's default, on; `PerturbationSettings.usesApproximation`).
        public var bla: Bool?
        /// BLA's relative error bound per step, 0 < E < 1.
        public var blaEpsilon: Double?
        /// Whether pixels whose smooth value the deltas may not hold are iterated again directly
        /// in MPFR (nil: the engine's default, on; `PerturbationSettings.settlesPixelsAtRisk`).
        public var precisionPasses: Bool?
        /// The approximation's tables (nil: the engine's default, LA;
        /// `PerturbationSettings.approximation`).
        public var approximation: ApproximationMethod?
        /// LA's relative error bound per linearized step, 0 < E < 1.
        public var laEpsilon: Double?
        /// The CPU seconds the passes for pixels at risk may spend in direct MPFR, 0 to 1e9
        /// (`PerturbationSettings.mpfrBudgetSeconds`).
        public var mpfrBudget: Double?
        /// The precision estimate (nil: the engine's default, the variance).
        public var estimate: EstimateMethod?
        /// Whether the first pass may take coarser tables where a probe finds it pays (nil: the
        /// engine's default, on; `PerturbationSettings.coarseFirstPass`).
        public var coarseFirstPass: Bool?
        /// How CPU passes read the reference orbit (nil: the engine's default, automatic;
        /// `PerturbationSettings.orbitResidency`).
        public var orbit: OrbitResidency?

        /// Settings with the fields given; every field left out is nil (the engine's default).
        public init(
            path: ArithmeticPath? = nil, glitches: GlitchMode? = nil, reference: ReferencePlacement? = nil,
            delta: DeltaType? = nil,
            bla: Bool? = nil, blaEpsilon: Double? = nil, precisionPasses: Bool? = nil,
            approximation: ApproximationMethod? = nil, laEpsilon: Double? = nil, mpfrBudget: Double? = nil,
            estimate: EstimateMethod? = nil, coarseFirstPass: Bool? = nil, orbit: OrbitResidency? = nil
        ) {
            self.orbit = orbit
            self.coarseFirstPass = coarseFirstPass
            self.estimate = estimate
            self.mpfrBudget = mpfrBudget
            self.laEpsilon = laEpsilon
            self.approximation = approximation
            self.path = path
            self.glitches = glitches
            self.reference = reference
            self.delta = delta
            self.bla = bla
            self.blaEpsilon = blaEpsilon
            self.precisionPasses = precisionPasses
        }

        /// Lays these settings over `settings`: each field given replaces the engine's
        /// setting, a nil field leaves it as it is. A BLA epsilon outside (0, 1) is refused.
        public func apply(to settings: inout PerturbationSettings) throws(FathomError) {
            if let blaEpsilon {
                guard EngineSettings.isBLAEpsilon(blaEpsilon) else {
                    throw .badBLAEpsilon(field: "engine.blaEpsilon", value: blaEpsilon)
                }
                settings.blaEpsilon = blaEpsilon
            }
            if let glitches { settings.glitchMode = glitches }
            if let reference { settings.placement = reference }
            if let delta { settings.deltaType = delta }
            if let bla { settings.usesApproximation = bla }
            if let approximation { settings.approximation = approximation }
            if let orbit { settings.orbitResidency = orbit }
            if let estimate { settings.estimate = estimate }
            if let laEpsilon {
                guard EngineSettings.isBLAEpsilon(laEpsilon) else {
                    throw .badBLAEpsilon(field: "engine.laEpsilon", value: laEpsilon)
                }
                settings.laEpsilon = laEpsilon
            }
            if let precisionPasses { settings.settlesPixelsAtRisk = precisionPasses }
            if let coarseFirstPass { settings.coarseFirstPass = coarseFirstPass }
            if let mpfrBudget {
                guard EngineSettings.isMPFRBudget(mpfrBudget) else {
                    throw .badMPFRBudget(field: "engine.mpfrBudget", value: mpfrBudget)
                }
                settings.mpfrBudgetSeconds = mpfrBudget
            }
        }

        /// Lays these settings over `settings` (the arithmetic path and the perturbation
        /// settings): what `ImageRender.render` does with a file's engine settings.
        public func apply(to settings: inout RenderSettings) throws(FathomError) {
            try apply(to: &settings.perturbation)
            if let path { settings.path = path }
        }

        /// Whether `e` is a BLA epsilon: a number in (0, 1).
        public static func isBLAEpsilon(_ e: Double) -> Bool { e > 0 && e < 1 }

        /// Whether `s` is an MPFR budget: seconds from 0 to 1e9.
        public static func isMPFRBudget(_ s: Double) -> Bool { s >= 0 && s <= 1e9 }
    }
}

extension LocationFile.EngineSettings: Codable {
    enum CodingKeys: String, CodingKey {
        case path, glitches, reference, delta, bla, blaEpsilon, precisionPasses, approximation, laEpsilon, mpfrBudget,
            estimate, coarseFirstPass, orbit
    }

    /// Reads the fields present, each engine value from its raw value. An unknown value throws
    /// `FathomError.unknownEngineValue`; an epsilon outside (0, 1) or a budget outside 0...1e9 throws
    /// `FathomError.badBLAEpsilon` or `FathomError.badMPFRBudget`, naming the field by its coding path.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func field(_ key: CodingKeys) -> String {
            (decoder.codingPath + [key]).map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        /// The engine's value spelled by `key`'s string.
        func value<T: CaseIterable & RawRepresentable>(_ key: CodingKeys) throws -> T? where T.RawValue == String {
            guard let text = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
            guard let value = T(rawValue: text) else {
                throw FathomError.unknownEngineValue(
                    field: field(key), value: text, accepted: Choice.words(of: T.self))
            }
            return value
        }
        self.init(
            path: try value(.path), glitches: try value(.glitches), reference: try value(.reference),
            delta: try value(.delta),
            bla: try c.decodeIfPresent(Bool.self, forKey: .bla),
            blaEpsilon: try c.decodeIfPresent(Double.self, forKey: .blaEpsilon),
            precisionPasses: try c.decodeIfPresent(Bool.self, forKey: .precisionPasses),
            approximation: try value(.approximation),
            laEpsilon: try c.decodeIfPresent(Double.self, forKey: .laEpsilon),
            mpfrBudget: try c.decodeIfPresent(Double.self, forKey: .mpfrBudget), estimate: try value(.estimate),
            coarseFirstPass: try c.decodeIfPresent(Bool.self, forKey: .coarseFirstPass), orbit: try value(.orbit))
        if let e = blaEpsilon, !Self.isBLAEpsilon(e) {
            throw FathomError.badBLAEpsilon(field: field(.blaEpsilon), value: e)
        }
        if let e = laEpsilon, !Self.isBLAEpsilon(e) {
            throw FathomError.badBLAEpsilon(field: field(.laEpsilon), value: e)
        }
        if let s = mpfrBudget, !Self.isMPFRBudget(s) {
            throw FathomError.badMPFRBudget(field: field(.mpfrBudget), value: s)
        }
    }

    /// The raw values, and only the fields given (as before the fields were typed).
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(path?.rawValue, forKey: .path)
        try c.encodeIfPresent(glitches?.rawValue, forKey: .glitches)
        try c.encodeIfPresent(reference?.rawValue, forKey: .reference)
        try c.encodeIfPresent(delta?.rawValue, forKey: .delta)
        try c.encodeIfPresent(bla, forKey: .bla)
        try c.encodeIfPresent(blaEpsilon, forKey: .blaEpsilon)
        try c.encodeIfPresent(precisionPasses, forKey: .precisionPasses)
        try c.encodeIfPresent(approximation?.rawValue, forKey: .approximation)
        try c.encodeIfPresent(laEpsilon, forKey: .laEpsilon)
        try c.encodeIfPresent(mpfrBudget, forKey: .mpfrBudget)
        try c.encodeIfPresent(estimate?.rawValue, forKey: .estimate)
        try c.encodeIfPresent(coarseFirstPass, forKey: .coarseFirstPass)
        try c.encodeIfPresent(orbit?.rawValue, forKey: .orbit)
    }
}
