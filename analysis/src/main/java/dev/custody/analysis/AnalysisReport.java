package dev.custody.analysis;

import java.util.List;

/**
 * What {@link PolicyAnalyzer#analyze} found. Immutable and thread-safe.
 *
 * @param rules the enabled rules of active policies that were looked at
 * @param analyzed those inside the fragment whose every query the solver answered
 * @param findings in declaration order of their rules, then by kind
 * @param queries how many solver queries were asked
 */
public record AnalysisReport(int rules, int analyzed, List<AnalysisFinding> findings, int queries) {

    public AnalysisReport {
        findings = List.copyOf(findings);
    }

    /** Whether some finding has severity error. */
    public boolean hasErrors() {
        return findings.stream().anyMatch(f -> f.severity().equals("error"));
    }
}
