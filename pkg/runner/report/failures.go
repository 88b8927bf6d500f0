package report

import "fmt"

// StepError is a step's failure with where it happened: the flow's name,
// the step's label and its line in File. Err is the cause (a *protocol.Error,
// *AssertionError, *FailError, *ObstacleError or an expression error). Its
// text is the flow's error in every report, so it names File
// slash-separated (ReportPath): "flows/pay.yaml:3: step ...".
type StepError struct {
	Flow string
	Step string
	File string
	Line int
	Err  error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("%s:%d: step %q: %v", ReportPath(e.File), e.Line, e.Step, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// ObstacleError ends a flow blocked because an extract's verdict met a stop
// policy: the flow's status is StatusBlocked.
type ObstacleError struct {
	Type       string `json:"type"`
	Confidence string `json:"confidence"`
	Message    string `json:"message"`
}

func (e *ObstacleError) Error() string {
	return fmt.Sprintf("blocked by obstacle %s (%s confidence): %s", e.Type, e.Confidence, e.Message)
}
