/// Facts about this build of Fathom.
public enum FathomInfo {
    /// Fathom's version, stored in each rendered PNG's location (`LocationFile.RenderInfo`).
    public static let version = "1.0.0"
    /// The PNG tEXt keyword under which the location JSON is stored.
    public static let locationKey = "fathom-location"
}
