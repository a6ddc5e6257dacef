import FractalNumerics

/// The direct paths: every pixel iterated in Double or double-double (Newton's method included),
/// then, where asked, the extras pass. Mandelbrot and Julia views in Double take the lanes'
/// rounding check, and the pixels it marks go to double-double lanes.
struct DirectRender {
    let location: Location
    let viewport: Viewport
    let settings: RenderSettings
    let path: ArithmeticPath
    let executor: any PassExecutor
    let control: RenderControl?
    let grid: PixelGrid

    init(
        location: Location, viewport: Viewport, settings: RenderSettings, path: ArithmeticPath,
        executor: any PassExecutor,
        control: RenderControl?
    ) {
        self.location = location
        self.viewport = viewport
        self.settings = settings
        self.path = path
        self.executor = executor
        self.control = control
        grid = PixelGrid(viewport: viewport)
    }

    var limit: Int { location.maxIterations }

    /// Renders `field`; returns how many pixels the rounding check sent to double-double.
    func run(into field: inout IterationField) throws -> Int {
        var rechecked = 0
        switch (path, location.family) {
        case (.perturbation, _):
            preconditionFailure("perturbation is not a direct path")
        case (.double, .mandelbrot):
            rechecked = try checkedDouble(juliaC: nil, ddJuliaC: nil, into: &field)
        case (.double, .julia):
            let c = try juliaC()
            let cd = Complex(c.re.doubleValue, c.im.doubleValue)
            if cd.re * cd.re + cd.im * cd.im <= 4 {
                rechecked = try checkedDouble(juliaC: cd, ddJuliaC: c, into: &field)
            } else {
                try pass(
                    ScalarEscapeKernel<QuadraticFormula, Double>(
                        formula: QuadraticFormula(), grid: grid, juliaC: cd, maxIterations: limit),
                    device: directForm(power: 2, juliaC: cd, marks: nil), into: &field)
            }
        case (.double, .multibrot(let p)):
            try pass(
                ScalarEscapeKernel<MultibrotFormula, Double>(
                    formula: MultibrotFormula(power: p), grid: grid, juliaC: nil, maxIterations: limit),
                device: directForm(power: p, juliaC: nil, marks: nil), into: &field)
        case (.double, .newton(let poly)):
            try pass(
                NewtonKernel<Double>(newton: NewtonIteration(poly), grid: grid, maxIterations: limit), into: &field)
        case (.doubleDouble, .mandelbrot):
            try pass(
                QuadraticLaneKernel<DoubleDoubleLanes<SIMD8<Double>>>(grid: grid, juliaC: nil, maxIterations: limit),
                into: &field)
        case (.doubleDouble, .julia):
            let c = try juliaC()
            if c.re.hi * c.re.hi + c.im.hi * c.im.hi <= 4 {
                try pass(
                    QuadraticLaneKernel<DoubleDoubleLanes<SIMD8<Double>>>(grid: grid, juliaC: c, maxIterations: limit),
                    into: &field)
            } else {
                try pass(
                    ScalarEscapeKernel<QuadraticFormula, DoubleDouble>(
                        formula: QuadraticFormula(), grid: grid, juliaC: c, maxIterations: limit),
                    into: &field)
            }
        case (.doubleDouble, .multibrot(let p)):
            try pass(
                ScalarEscapeKernel<MultibrotFormula, DoubleDouble>(
                    formula: MultibrotFormula(power: p), grid: grid, juliaC: nil,
                    maxIterations: limit), into: &field)
        case (.doubleDouble, .newton(let poly)):
            try pass(
                NewtonKernel<DoubleDouble>(newton: NewtonIteration(poly), grid: grid, maxIterations: limit),
                into: &field)
        }
        if control?.isCancelled == true { throw RenderError.cancelled }
        if !settings.extras.isEmpty { try extras(into: &field) }
        return rechecked
    }

    private func juliaC() throws -> Complex<DoubleDouble> {
        try location.family.juliaParameter(precision: viewport.precision)!.doubleDoubleValue
    }

    /// `kernel` over the field's pixels (or `RenderSettings.onlyPixels`), with its device form;
    /// cancelled and reporting progress through the render's control unless not `controlled`.
    private func pass<K: TileKernel>(
        _ kernel: K, device: DeviceForm? = nil, controlled: Bool = true,
        into field: inout IterationField
    ) throws {
        let control = controlled ? self.control : nil
        if let only = settings.onlyPixels {
            try executor.run(
                Pass(SubsetKernel(inner: kernel, subset: only), count: only.count, tilePixels: 16, control: control),
                into: &field)
        } else {
            try executor.run(
                Pass(
                    kernel, count: field.pixelCount, tilePixels: settings.tilePixels, control: control, device: device),
                into: &field)
        }
    }

    /// Double lanes with the rounding check (unless `RenderSettings.checkRounding` is off),
    /// then the pixels it marks in double-double lanes; returns how many it marked.
    private func checkedDouble(
        juliaC: Complex<Double>?, ddJuliaC: Complex<DoubleDouble>?, into field: inout IterationField
    ) throws -> Int {
        let lanes = QuadraticLaneKernel<DoubleLanes<SIMD8<Double>>>(grid: grid, juliaC: juliaC, maxIterations: limit)
        guard settings.checkRounding else {
            try pass(lanes, device: directForm(power: 2, juliaC: juliaC, marks: nil), into: &field)
            return 0
        }
        var atRisk = [UInt8](repeating: 0, count: field.pixelCount)
        try atRisk.withUnsafeMutableBufferPointer { flags in
            let marks = SendablePointer(flags.baseAddress!)
            try pass(
                CheckedDoubleLaneKernel(lanes: lanes, atRisk: marks),
                device: directForm(power: 2, juliaC: juliaC, marks: marks),
                into: &field)
        }
        var marked = atRisk.indices.filter { atRisk[$0] != 0 }
        if let only = settings.onlyPixels {
            let wanted = Set(only)
            marked = marked.filter { wanted.contains($0) }
        }
        guard !marked.isEmpty, control?.isCancelled != true else { return 0 }
        let wide = QuadraticLaneKernel<DoubleDoubleLanes<SIMD8<Double>>>(
            grid: grid, juliaC: ddJuliaC, maxIterations: limit, subset: marked)
        try executor.run(Pass(wide, count: marked.count, tilePixels: 256), into: &field)
        return marked.count
    }

    /// Direct Double escape time as a GPU backend runs it (`DirectLaunch`), finished with the
    /// CPU's smooth value and, with `marks`, the lanes' rounding check. Nil where no backend
    /// kernel exists (rotation, a subset, powers above 16) or no backend is used.
    private func directForm(power: Int, juliaC: Complex<Double>?, marks: SendablePointer<UInt8>?) -> DeviceForm? {
        // (A form of the CPU takes none: the CPU's own direct lanes run there.)
        guard executor.traits.isDevice, settings.onlyPixels == nil, !grid.rotated,
            power <= PerturbationLaunch.maximumPower
        else { return nil }
        let launch = DirectLaunch(
            columns: LaunchArray(grid.columnRe.map(\.doubleValue)), rows: LaunchArray(grid.rowIm.map(\.doubleValue)),
            width: viewport.width, count: viewport.width * viewport.height, maxIterations: limit, power: power,
            juliaC: juliaC)
        return DeviceForm(launch: .direct(launch)) { items, raw, writer in
            DeviceForm.forEachOutcome(DirectOutcome.self, items, raw) { i, out in
                let escaped = out.nBig > 0
                writer.write(
                    i,
                    PixelResult(
                        n2: out.n2, nBig: out.nBig,
                        smooth: escaped ? Escape.smooth(nBig: Int(out.nBig), lengthSquared: out.r2, power: power) : .nan
                    ))
                if let marks {
                    let holds = PrecisionEstimate.roundingCheckHolds(
                        lengthSquared: escaped ? out.r2 : Escape.radiusSquared2, e2: out.e2, exponent: Int(out.exponent)
                    )
                    marks.pointer[i] = holds ? 0 : 1
                }
            }
        }
    }

    /// Each pixel iterated once more with the tracker, in the path's type (not for Newton).
    private func extras(into field: inout IterationField) throws {
        var extras = ExtrasField(count: field.pixelCount, request: settings.extras)
        func extrasPass<F: EscapeTimeFormula, T: DirectScalar>(_ formula: F, _: T.Type, juliaC: Complex<T>?) throws {
            try extras.withWriter { writer in
                try pass(
                    ScalarExtrasKernel<F, T>(
                        formula: formula, grid: grid, juliaC: juliaC, maxIterations: limit, trap: settings.extras.trap,
                        log2Spacing: viewport.log2Spacing, writer: writer),
                    controlled: false, into: &field)
            }
        }
        switch (path, location.family) {
        case (.double, .mandelbrot): try extrasPass(QuadraticFormula(), Double.self, juliaC: nil)
        case (.double, .multibrot(let p)): try extrasPass(MultibrotFormula(power: p), Double.self, juliaC: nil)
        case (.double, .julia):
            let c = try juliaC()
            try extrasPass(QuadraticFormula(), Double.self, juliaC: Complex(c.re.doubleValue, c.im.doubleValue))
        case (.doubleDouble, .mandelbrot): try extrasPass(QuadraticFormula(), DoubleDouble.self, juliaC: nil)
        case (.doubleDouble, .multibrot(let p)):
            try extrasPass(MultibrotFormula(power: p), DoubleDouble.self, juliaC: nil)
        case (.doubleDouble, .julia): try extrasPass(QuadraticFormula(), DoubleDouble.self, juliaC: try juliaC())
        default: return
        }
        field.extras = extras
    }
}
