/// ListModel: the pure view-model core of Sectional (placeholder until the core lands).
public enum ListModel {}
