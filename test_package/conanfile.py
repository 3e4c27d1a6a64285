import os
from io import StringIO

from conan import ConanFile
from conan.tools.build import can_run
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout


class StaticflowTestConan(ConanFile):
    settings = "os", "arch", "compiler", "build_type"

    def requirements(self):
        self.requires(self.tested_reference_str)

    def layout(self):
        cmake_layout(self)

    def generate(self):
        CMakeDeps(self).generate()
        CMakeToolchain(self).generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def test(self):
        if can_run(self):
            exe = os.path.join(self.cpp.build.bindir, "test_package")
            out = StringIO()
            self.run(exe, stdout=out, env="conanrun")
            result = out.getvalue().strip()
            self.output.info(f"test_package output: {result}")
            if result != "7 7":
                raise RuntimeError(f"test_package: expected `7 7`, got `{result}`")
