// The report page (placeholder until written).
