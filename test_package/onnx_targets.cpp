// staticflow::onnx carries the ONNX protobuf types' include path, definitions and libraries:
// a model proto is made, serialized and parsed back (io/onnx.hpp itself is tested in the tree).
#include <onnx/onnx_pb.h>

#include <string>

int main() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.mutable_graph()->set_name("consumer");
  std::string bytes;
  if (!model.SerializeToString(&bytes)) return 1;
  onnx::ModelProto back;
  return back.ParseFromString(bytes) && back.graph().name() == "consumer" ? 0 : 1;
}
