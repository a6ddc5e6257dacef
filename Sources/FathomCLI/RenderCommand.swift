import Fathom
import Foundation

enum RenderCommand {
    static func run(_ args: [String]) throws {
        guard let a = try Commands.render.arguments(args) else { return }
        try a.refusePositionals()
        try refuseConflicts(a)
        var file = try baseLocation(a)
        try applyOverrides(a, to: &file)

        let location = try file.location()
        let (settings, engine) = try renderSettings(a, file)
        let width = settings.width, height = settings.height
        let output = a[.output] ?? "fathom.png"
        let npy = a[.npy]
        let bitDepth = a.int(.bitDepth).flatMap(BitDepth.init(rawValue:)) ?? .eight
        // Every output is resolved (and two on one file refused) before any work.
        let outputs = try ImageRender.Outputs(png: output, npy: npy, reference: settings.perturbation.saveReference)
        // With an image on standard output, the report goes to standard error (`print`,
        // StandardOutput.swift).
        func report(_ line: String) { print(line) }
        let quiet = a.has(.quiet)
        try announce(location: location, settings: settings, quiet: quiet, verbose: a.has(.verbose))

        // A progress line with an ETA on stderr when it is a terminal (--quiet: none).
        let bar = TerminalProgress(quiet: quiet)
        var progress: (@Sendable (Double) -> Void)?
        if bar.shown { progress = { bar.update($0) } }
        let control = Cancellation.control(progress: progress)
        var toRender = file
        toRender.width = width
        toRender.height = height
        toRender.engine = engine
        defer { bar.clear() }
        let result = try ImageRender.render(
            toRender, settings: settings, into: outputs.set, png: 0, npy: outputs.npy,
            reference: outputs.reference, bitDepth: bitDepth, control: control)
        try outputs.set.commit()
        for warning in result.report.warnings { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
        if let p = result.report.perturbation, p.unsettledPixels > 0 {
            FileHandle.standardError.write(Data((Self.unverifiedWarning(p) + "\n").utf8))
        }

        if !quiet {
            let r = result.report
            let timing = String(format: "%.2f s, %.0f M iterations", r.seconds, Double(r.iterations) / 1e6)
            report(
                "wrote \(output): \(width)x\(height), \(location.family.name), path \(r.path.rawValue) (view needs \(r.requiredBits) bits), \(timing)"
            )
            if let p = r.perturbation { report(describe(p)) }
            // The CPU's lane form (`lanes`, and `auto` without a GPU) is a launcher too: named
            // where it ran a pass.
            let lanes = r.device.hasPrefix("CPU lanes")
            if r.backend != .cpu && (!lanes || r.gpuPasses > 0) {
                let passes = lanes ? "passes in lanes" : "GPU passes"
                report("backend: \(r.device), " + String(format: "%.3f s in %d \(passes)", r.gpuSeconds, r.gpuPasses))
            }
            if r.doubleDoublePixels > 0 {
                report("double: \(r.doubleDoublePixels) pixels again in double-double (rounding check)")
            }
            if a.has(.verbose) {
                report(
                    "threads \(r.threads), guard bits \(settings.guardBits), radius \(abbreviated(location.radius)), iterations \(location.maxIterations)"
                )
                if let p = r.perturbation {
                    for (k, ref) in p.references.enumerated() {
                        report("reference \(k): \(abbreviated(ref.re)), \(abbreviated(ref.im))")
                    }
                }
            }
        }
    }

    /// The warning for pixels the passes could not settle within the MPFR budget: how many, and
    /// the first of them as x,y.
    static func unverifiedWarning(_ p: PerturbationReport) -> String {
        let shown = p.unsettledList.prefix(16).map(\.description).joined(separator: " ")
        let more = p.unsettledList.count > 16 ? " and \(p.unsettledList.count - 16) more" : ""
        return "warning: \(p.unsettledPixels) pixels not verified: their smooth values may miss 1e-7 (direct MPFR "
            + "would take more than the --mpfr-budget): \(shown)\(more)"
    }

    /// A decimal number of any length as at most about 40 characters: its leading digits,
    /// its exponent and its digit count (the whole value is in the PNG's location chunk).
    static func abbreviated(_ text: String) -> String {
        guard text.utf8.count > 40 else { return text }
        guard let value = try? BigFloat(parsing: text, precision: Precision(bits: 64)) else {
            return String(text.prefix(37)) + "..."
        }
        let digits = text.prefix { $0 != "e" && $0 != "E" }.filter(\.isNumber).count
        return value.decimalString(significantDigits: 16) + " (\(digits) digits)"
    }

    /// Options that contradict each other: refused, never one silently winning.
    static func refuseConflicts(_ a: Arguments) throws {
        if a[.center] != nil && (a[.re] != nil || a[.im] != nil) {
            throw CLIError.usage("give --center or --re/--im, not both")
        }
        if a.has(.verbose) && a.has(.quiet) { throw CLIError.usage("give --verbose or --quiet, not both") }
        if let family = a[.family]?.lowercased() {
            if a[.julia] != nil && family != "julia" {
                throw CLIError.usage("--julia is the Julia family's parameter, not \(family)'s")
            }
            if a[.newton] != nil && family != "newton" {
                throw CLIError.usage("--newton is the Newton family's polynomial, not \(family)'s")
            }
            if a[.power] != nil && family != "multibrot" && family != "mandelbrot" {
                throw CLIError.usage("--power is the Multibrot family's power, not \(family)'s")
            }
        }
        if a[.julia] != nil && a[.newton] != nil { throw CLIError.usage("give --julia or --newton, not both") }
    }

    /// Before a long render: the plan (bits, reference steps, time here) on stderr, and a
    /// refusal of what cannot fit in memory. Also with --verbose.
    static func announce(location: Location, settings: RenderSettings, quiet: Bool, verbose: Bool) throws {
        let plan = try Renderer.plan(location: location, settings: settings)
        guard let bits = plan.referenceBits else { return }
        let memory = RenderPlan.physicalMemory
        // A nucleus reference (rebase mode) is computed for one period, unknown until the
        // nucleus is found: the bound is the limit's, and the orbit loop's own memory check
        // stops a fallback orbit that would outgrow memory.
        let mayWrap =
            [.nucleus, .automatic].contains(settings.perturbation.placement)
            && settings.perturbation.glitchMode == .rebase
        if plan.referenceBytes > memory && !mayWrap {
            throw CLIError.data(
                "the reference orbit may take \(plan.referenceSteps) steps at \(bits) bits, up to \(plan.referenceBytes >> 20) MiB with its tables, more than this machine's \(memory >> 20) MiB: lower --iterations (at most about \(RenderPlan.maximumReferenceSteps(memory: memory, bytesPerStep: plan.bytesPerStep)))"
            )
        }
        guard !quiet, verbose || plan.referenceSeconds > 10 else { return }
        FileHandle.standardError.write(
            Data(
                ("estimate: view needs \(plan.requiredBits) bits; reference orbit at \(bits) bits, up to \(plan.referenceSteps) steps, up to "
                    + ProgressMeter.duration(plan.referenceSeconds)
                    + " here (less if it escapes\(mayWrap ? " or a nucleus is found" : "")), up to \(plan.referenceBytes >> 20) MiB\n")
                    .utf8))
    }

    /// The render settings from `file` (size, guard bits, engine) and --threads, --guard-bits
    /// and the engine options; also the engine settings themselves (stored with the image).
    static func renderSettings(_ a: Arguments, _ file: LocationFile) throws -> (
        RenderSettings, LocationFile.EngineSettings
    ) {
        let width = file.width ?? LocationFile.defaultSize.width,
            height = file.height ?? LocationFile.defaultSize.height
        try ImageSize.validate(width: width, height: height)
        var settings = RenderSettings(width: width, height: height)
        if let t = a.int(.threads) { settings.threads = t }
        if let g = a.int(.guardBits) ?? file.guardBits {
            // The command line's is checked when parsed; this is the file's.
            guard RenderSettings.guardBitsRange.contains(g) else {
                throw CLIError.data("the location's guardBits: \(g) is outside \(RenderSettings.guardBitsRange)")
            }
            settings.guardBits = g
        }
        (settings.backend, settings.gpuExact) = backend(a)
        let engine = engineSettings(a, file.engine)
        try engine.apply(to: &settings)
        settings.perturbation.loadReference = a[.loadReference]
        settings.perturbation.saveReference = a[.saveReference]
        return (settings, engine)
    }

    /// --backend (default auto) and --gpu-exact (default off): where the kernels run, a
    /// property of the machine, so not stored in location files.
    static func backend(_ a: Arguments) -> (ComputeBackend, Bool) {
        (a[.backend].flatMap(ComputeBackend.init(named:)) ?? .auto, a.onOff(.gpuExact) ?? false)
    }

    /// The file's engine settings with the command line's engine options laid over them (each
    /// checked when parsed; a file's are checked when it is read).
    static func engineSettings(_ a: Arguments, _ base: LocationFile.EngineSettings?) -> LocationFile.EngineSettings {
        var e = base ?? LocationFile.EngineSettings()
        if let v = a.choice(.path, as: ArithmeticPath.self) { e.path = v }
        if let v = a.choice(.glitches, as: GlitchMode.self) { e.glitches = v }
        if let v = a.choice(.reference, as: ReferencePlacement.self) { e.reference = v }
        if let v = a.choice(.delta, as: DeltaType.self) { e.delta = v }
        if let v = a.choice(.approximation, as: ApproximationMethod.self) { e.approximation = v }
        if let v = a.choice(.estimate, as: EstimateMethod.self) { e.estimate = v }
        if let v = a.choice(.orbit, as: OrbitResidency.self) { e.orbit = v }
        if let v = a.onOff(.bla) { e.bla = v }
        if let v = a.onOff(.precisionPasses) { e.precisionPasses = v }
        if let v = a.onOff(.coarseFirstPass) { e.coarseFirstPass = v }
        if let v = a.number(.blaEpsilon) { e.blaEpsilon = v }
        if let v = a.number(.laEpsilon) { e.laEpsilon = v }
        if let v = a.number(.mpfrBudget) { e.mpfrBudget = v }
        return e
    }

    /// One line about a perturbation render.
    static func describe(_ p: PerturbationReport) -> String {
        var line =
            "perturbation: deltas \(p.deltaType.rawValue), reference \(p.precisionBits) bits, \(p.referenceLength) steps"
            + (p.referenceEscaped ? " (escaped)" : "")
            + String(format: " held in %.2f bytes a step", p.referenceBytesPerStep)
            + (p.referencePeriod.map {
                p.referenceIsNucleus
                    ? " (a nucleus of period \($0), wrapped)" : " (the center's, ended at the view's period \($0))"
            } ?? "")
            + (p.referenceNote.map { " (\($0))" } ?? "")
            + String(format: ", %.2f s in references", p.referenceSeconds)
            + (p.referenceDevice.map { " (steps on \($0))" } ?? "")
            + ", glitches \(p.glitchMode.rawValue)"
            + (p.interiorPixels > 0 ? ", \(p.interiorPixels) pixels proven interior" : "")
            + (p.firstPassEpsilon.map { ", first pass at epsilon 2^\(Int(log2($0).rounded()))" } ?? "")
            + (p.settingEpsilonPixels > 0 ? ", \(p.settingEpsilonPixels) pixels at risk again at the setting's" : "")
            + (p.fineApproximationPixels > 0
                ? ", \(p.fineApproximationPixels) pixels at risk again at epsilon 2^-53" : "")
            + (p.doubleDoublePixels > 0 ? ", \(p.doubleDoublePixels) again with 106-bit deltas" : "")
            + (p.finerOrbitBits.map { " against an orbit at \($0) bits" } ?? "")
            + (p.fineWidePixels > 0
                ? ", \(p.fineWidePixels) of them again with the tables at 2^-53 of their epsilon" : "")
            + (p.reiteratedPixels > 0 ? ", \(p.reiteratedPixels) in MPFR" : "")
            + (p.unsettledPixels > 0 ? ", \(p.unsettledPixels) not verified (over the MPFR budget)" : "")
            + (p.approximationSteps > 0
                ? String(format: ", tables %.2f s, ", p.approximationSeconds)
                    + "\(p.approximationSteps) of \(p.loopSteps) loop steps LA or BLA" : "")
            + (p.streamedPasses > 0 ? ", \(p.streamedPasses) passes streaming the orbit" : "")
        if p.glitchMode == .detect {
            line +=
                ": \(p.glitchedPixels) pixels glitched, \(p.references.count) references, \(p.uncorrectedPixels) left"
        }
        return line
    }

    /// --location FILE, --preset NAME, or the family's default view.
    static func baseLocation(_ a: Arguments) throws -> LocationFile {
        if a[.location] != nil && a[.preset] != nil { throw CLIError.usage("give --location or --preset, not both") }
        if let path = a[.location] { return try LocationFile.read(path: path) }
        let name = a[.preset] ?? a[.family] ?? "mandelbrot"
        if let preset = Presets.named(name) {
            return LocationFile(location: preset.location, width: preset.width, height: preset.height)
        }
        if a[.preset] != nil { throw CLIError.usage("unknown preset '\(name)' (see 'fathom presets')") }
        throw CLIError.usage("unknown family '\(name)' (known: \(Catalogue.familyNames.joined(separator: ", ")))")
    }

    static func applyOverrides(_ a: Arguments, to file: inout LocationFile) throws {
        if let family = a[.family] {
            guard let kind = Family.Kind(named: family) else {
                throw CLIError.usage(
                    "unknown family '\(family)' (known: \(Catalogue.familyNames.joined(separator: ", ")))")
            }
            file.family = kind
            if kind == .multibrot && file.power == 2 { file.power = 3 }
        }
        if let (re, im) = a.pair(.center) { file.center = [re, im] }
        if let re = a[.re] { file.center[0] = re }
        if let im = a[.im] { file.center[1] = im }
        if a[.radius] != nil && a[.zoom] != nil { throw CLIError.usage("give --radius or --zoom, not both") }
        if let r = a[.radius] { file.radius = r }
        if let z = a[.zoom] { file.radius = try LocationFile.radius(fromZoom: z) }
        if let n = a.int(.iterations) { file.maxIterations = n }
        if let (re, im) = a.pair(.julia) {
            file.juliaC = [re, im]
            if a[.family] == nil { file.family = .julia }
        }
        if let p = a.int(.power) { file.power = p }
        if let poly = a[.newton] {
            file.newton = poly
            if a[.family] == nil { file.family = .newton }
        }
        if let rot = a.number(.rotation) { file.rotation = rot }
        // Its range checked when parsed (a file's by `renderSettings`); stored with the view, as in a file.
        if let g = a.int(.guardBits) { file.guardBits = g }
        if let (w, h) = a.size(.size) {
            file.width = w
            file.height = h
        }
        var color = file.color ?? ColorSettings()
        if let name = a[.palette] {
            guard let p = Catalogue.palette(named: name) else {
                throw CLIError.usage(
                    "unknown palette '\(name)' (known: \(Catalogue.paletteNames.joined(separator: ", ")))")
            }
            color.palette = p
        }
        // --density or --offset keep the meaning they always had: with an automatic scale
        // (the default) they make it linear, density 1 and offset 0 unless given.
        let density = a.number(.density), offset = a.number(.offset)
        if (density != nil || offset != nil) && color.scale == .automatic && a[.colorScale] == nil {
            color.scale = .linear
            color.density = 1
            color.offset = 0
        }
        if let d = density { color.density = d }
        if let o = offset { color.offset = o }
        if let smooth = a.onOff(.smooth) { color.smooth = smooth }
        if let scale = a.choice(.colorScale, as: ColorSettings.Scale.self) {
            if scale == .automatic && (density != nil || offset != nil) {
                throw CLIError.usage(
                    "--color-scale auto adapts density and offset to the view: give it without --density and --offset")
            }
            // A new scale starts from its defaults (a histogram takes its table from the new
            // field), except for what the command line gives.
            if scale != color.scale {
                color.quantiles = nil
                if color.scale == .automatic || scale == .automatic {
                    color.density = density ?? 1
                    color.offset = offset ?? 0
                }
            }
            color.scale = scale
        }
        if let hex = a[.interior] {
            guard hex.count == 6, let v = UInt32(hex, radix: 16) else {
                throw CLIError.data("--interior: '\(hex)' is not a colour RRGGBB")
            }
            color.interior = RGB(Double(v >> 16) / 255, Double((v >> 8) & 255) / 255, Double(v & 255) / 255)
        }
        if let k = a.int(.supersample) { file.supersample = k == 1 ? nil : k }
        if let w = a[.boundary] {
            if w == "off" {
                color.boundaryWidth = nil
            } else {
                guard let v = Double(w), v > 0, v.isFinite else {
                    throw CLIError.data("--boundary: '\(w)' is not a width in pixels > 0 (or off)")
                }
                color.boundaryWidth = v
            }
        }
        if let text = a[.slope] {
            if text == "off" {
                color.slope = nil
            } else {
                let parts = text.split(separator: ",").map { Double($0) }
                guard (1...3).contains(parts.count), parts.allSatisfy({ $0?.isFinite == true }) else {
                    throw CLIError.data(
                        "--slope: '\(text)' is not ANGLE[,HEIGHT[,STRENGTH]] (degrees, > 0, 0...1) or off")
                }
                var light = ColorSettings.SlopeLight(angle: parts[0]!)
                if parts.count > 1 { light.height = parts[1]! }
                if parts.count > 2 { light.strength = parts[2]! }
                guard light.height > 0, (0...1).contains(light.strength) else {
                    throw CLIError.data("--slope: height must be > 0 and strength within 0...1")
                }
                color.slope = light
            }
        }
        if let text = a[.trap] {
            if text == "off" {
                color.trap = nil
            } else {
                let kind = text.prefix { $0 != ":" }
                let rest = text.dropFirst(kind.count + 1).split(separator: ",").map { Double($0) }
                guard rest.count == 2, let re = rest[0], let im = rest[1], re.isFinite, im.isFinite,
                    kind == "point" || kind == "cross"
                else {
                    throw CLIError.data("--trap: '\(text)' is not point:RE,IM or cross:RE,IM (or off)")
                }
                color.trap = kind == "point" ? .point(re: re, im: im) : .cross(re: re, im: im)
            }
        }
        if let path = a[.gradient] {
            let data: Data
            do { data = try InputFile.read(path, maximumSize: FileError.maximumSize, kind: "a gradient file") } catch {
                throw CLIError.noInput("cannot read gradient file '\(path)': \(error.reason)")
            }
            do { color.gradient = try Gradient.parse(String(decoding: data, as: UTF8.self)) } catch {
                throw CLIError.data("'\(path)': \(error)")
            }
        }
        file.color = color
    }
}
