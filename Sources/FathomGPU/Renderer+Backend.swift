import FractalEngine

extension Renderer {
    /// Renders `location` at `settings` on the backend `settings.backend` names (opened once per
    /// process; `RenderSettings.gpuExact` picks the exact kernels). Under `auto`, a GPU that
    /// cannot be opened, or that fails mid-render (out of memory, say), costs a CPU render and a
    /// warning in the report.
    ///
    /// Throws what the engine's `render(location:settings:device:control:)` throws, and
    /// `GPUError` for `cuda` without a usable GPU.
    public static func render(location: Location, settings: RenderSettings, control: RenderControl? = nil) throws
        -> RenderResult
    {
        var warning: String?
        let device = try settings.backend.launcher(exact: settings.gpuExact, warning: &warning)
        do {
            var result = try render(location: location, settings: settings, device: device, control: control)
            if let warning { result.report.warnings.append(warning) }
            return result
        } catch let error as GPUError where settings.backend == .auto && device != nil {
            var result = try render(location: location, settings: settings, device: nil, control: control)
            result.report.warnings.append("\(error); rendered on the CPU")
            return result
        }
    }
}

extension Renderer {
    /// `render(location:settings:control:)` for async code: on a thread of its own, cancelled
    /// with the calling Task (`CancellationError`); see `RenderControl.run(with:_:)`.
    public static func render(location: Location, settings: RenderSettings, control: RenderControl? = nil)
        async throws -> RenderResult
    {
        try await RenderControl.run(with: control) { control in
            try render(location: location, settings: settings, control: control)
        }
    }
}
