// handle_dialog: answer the JavaScript dialog left open on the tab
// (docs/protocol.md#dialogs leaves page dialogs outside evaluate alone) through
// Page.handleJavaScriptDialog. The controller keeps the open dialog and lets
// this action through while every other one fails naming it.

export function handleDialog(ctx, action) {
  return ctx.answerDialog(action.accept === true, action.promptText);
}

export const executors = Object.freeze({ handle_dialog: handleDialog });
