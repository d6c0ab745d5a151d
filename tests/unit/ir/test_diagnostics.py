from modelcheck.diagnostics import Diagnostic, Span, render_diagnostic


def test_render_points_a_caret_at_the_span():
    source = "module m\nvar x: 0..3 = 0\ninvariant I: leadr == 1\n"
    diag = Diagnostic("MC2001", "unknown name 'leadr'", Span("m.mc", 3, 14, 3, 19),
                      hint="did you mean 'leader'?")
    assert render_diagnostic(diag, source) == (
        "error[MC2001]: unknown name 'leadr'\n"
        "  --> m.mc:3:14\n"
        "  |\n"
        "3 | invariant I: leadr == 1\n"
        "  |              ^^^^^\n"
        "   = hint: did you mean 'leader'?"
    )


def test_render_without_source_still_names_the_place():
    diag = Diagnostic("MC5002", "division by zero", Span("m.mc", 9, 3, 9, 8))
    assert render_diagnostic(diag, None) == "error[MC5002]: division by zero\n  --> m.mc:9:3"
