// anywidget's side of the step player: the app's own player (player.js, joined above this as mountPlayer) drawn in a
// notebook cell. Python holds `data` (the run, sent once) and `step`; a step taken here goes back to Python, and a step
// Python sets is a jump here, as a link or a lesson file is in the app. Nothing is loaded from the network.
export default {
  render({ model, el }) {
    const host = document.createElement("div");
    host.className = "bpe-player";
    el.append(host);
    let jump = 0;
    let shown = model.get("step");
    const send = (name, value) => {
      if (name === "step") {
        shown = value;
        model.set("step", value);
        model.save_changes();
      } else if (name === "chunk" && value !== null) {
        model.set("chunk", value); // Python answers with that chunk's pair counts in data.top
        model.save_changes();
      }
    };
    const draw = () => mountPlayer({ data: { ...model.get("data"), step: model.get("step"), jump }, parentElement: el,
                                     setStateValue: send });
    let cleanup = draw();
    const onStep = () => {
      if (model.get("step") === shown) return; // the step this player sent, coming back
      shown = model.get("step");
      jump += 1;
      draw();
    };
    const onData = () => draw();
    model.on("change:step", onStep);
    model.on("change:data", onData);
    return () => {
      model.off("change:step", onStep);
      model.off("change:data", onData);
      cleanup?.();
    };
  },
};
