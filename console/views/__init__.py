"""Console pages, one module per page. Adapters only: they call services and selectors."""
