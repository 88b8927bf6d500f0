package main

import (
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

// errorBody is the JSON form scripts read on failure:
// {"error": {"code", "message", "reason"?, "hint"}}.
type errorBody struct {
	Error struct {
		Code    protocol.ErrorCode `json:"code"`
		Message string             `json:"message"`
		Reason  string             `json:"reason,omitempty"`
		Hint    string             `json:"hint"`
	} `json:"error"`
}

func bodyOf(e *protocol.Error) errorBody {
	var b errorBody
	b.Error.Code, b.Error.Message, b.Error.Reason, b.Error.Hint = e.Code, e.Message, e.Reason, render.CommandHint(e)
	return b
}
